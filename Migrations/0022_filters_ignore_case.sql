-- The grid's genre, style and format filters match names whatever their case (`genre=electronic`,
-- `format=lp`), as its other parameters do: a miss answers an empty grid, not an error, so a client
-- that lower-cased a name saw an empty collection. The indexes that serve those filters order their
-- names without case, so that `name = ? COLLATE NOCASE` is a seek (NOCASE folds ASCII letters, which
-- is what Discogs' genre, style and format names are written in). Listings computed before are stale.
DROP INDEX album_genre_name;
CREATE INDEX album_genre_name ON album_genre(kind, name COLLATE NOCASE, album_id);
DROP INDEX album_format_name;
CREATE INDEX album_format_name ON album_format(name COLLATE NOCASE, album_id);
DROP INDEX album_format_vinyl_description;
CREATE INDEX album_format_vinyl_description ON album_format(json_extract(descriptions, '$[0]') COLLATE NOCASE, album_id)
    WHERE name = 'Vinyl';
UPDATE listing_generation SET value = value + 1;
