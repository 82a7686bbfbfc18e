-- The search rows again, each catalogue number written with separators also written together
-- (`SearchText.catalogNumbers`, the SQL function crated_search_catalog): `SPIN 150` is indexed as
-- `SPIN 150 SPIN150` too, so that `spin150` finds it, and a search of words with a digit matches
-- the written-together form (`spin 113` finds `SPIN113`). Only the rows whose catalogue numbers
-- gain a form are written again, from the catalogue as `SearchIndex` writes them (a table of the
-- main database, as in 0021). Search results computed before are stale.
CREATE TABLE search_catalog_numbers AS
    SELECT s.rowid AS album_id FROM album_search s
    WHERE crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = s.rowid))
          IS NOT s.catalog_numbers;
DELETE FROM album_search WHERE rowid IN (SELECT album_id FROM search_catalog_numbers);
INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
SELECT a.id, crated_search_text(a.title),
       crated_search_artists(a.artist_credit,
           (SELECT group_concat(name, char(10)) FROM (SELECT ar.name FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                     WHERE aa.album_id = a.id ORDER BY aa.position))),
       crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = a.id)),
       crated_search_text(COALESCE((SELECT group_concat(title, ' ') FROM track WHERE album_id = a.id), ''))
FROM album a WHERE a.id IN (SELECT album_id FROM search_catalog_numbers);
DROP TABLE search_catalog_numbers;
UPDATE listing_generation SET value = value + 1;
