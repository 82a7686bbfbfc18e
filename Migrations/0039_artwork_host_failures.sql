-- A cover whose last fetch failed because its host failed every request (not reached, 429, 503), not
-- because of the image: when that host gives an image again, such covers are due at once instead of
-- waiting out their own doubling delay, which reaches a day.
ALTER TABLE artwork ADD COLUMN host_failed INTEGER NOT NULL DEFAULT 0;
