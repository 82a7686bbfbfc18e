-- A year of 0 or less is no year: sync has never stored one, and the import now refuses `-001`
-- as it refuses any text that is not a year. Those stored before sorted ahead of every real year,
-- where the year sort's jump bar does not look for sections. The grid's keys follow by
-- album_grid_keys.
UPDATE album SET year = NULL WHERE year <= 0;
