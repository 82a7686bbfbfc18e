-- The grid's format filter matches a format's name or a vinyl's first description (`LP` is the
-- name an import stores, and the first description of the `Vinyl` that sync stores): this indexes
-- the latter as album_format_name indexes the former.
CREATE INDEX album_format_vinyl_description ON album_format(json_extract(descriptions, '$[0]'), album_id) WHERE name = 'Vinyl';
