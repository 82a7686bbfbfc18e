-- A cover whose host answered that it has no usable image (404 or 410, not an image, too large,
-- corrupt) and of which crated keeps no original: answers show no artwork for it (`artwork` null, as
-- for an album without a cover) rather than a URL that answers 503 for a week. A later fetch that
-- succeeds clears it; sync tries such covers again at their retry time.
ALTER TABLE artwork ADD COLUMN unusable INTEGER NOT NULL DEFAULT 0;

-- Answers follow `artwork_generation`: whether a cover is shown is part of what they show.
DROP TRIGGER artwork_generation_shown;
CREATE TRIGGER artwork_generation_shown AFTER UPDATE OF color, width, height, unusable ON artwork
WHEN OLD.color IS NOT NEW.color OR OLD.width IS NOT NEW.width OR OLD.height IS NOT NEW.height OR OLD.unusable IS NOT NEW.unusable
BEGIN UPDATE artwork_generation SET value = value + 1; END;
