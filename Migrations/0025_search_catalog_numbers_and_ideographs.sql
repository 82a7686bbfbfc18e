-- The search rows again, written as `SearchIndex` now writes them:
-- - each catalogue number with separators also written together (`SearchText.catalogNumbers`, the
--   SQL function crated_search_catalog): `SPIN 150` is indexed as `SPIN 150 SPIN150` too, so that
--   `spin150` finds it;
-- - each Han, hiragana and katakana character a word of its own (`SearchText.separatingIdeographs`,
--   now part of crated_search_text): `坂本龍一` as `坂 本 龍 一`, so that `龍一` finds it, where the
--   tokenizer took the run as one word that only a search of its start reached.
-- Only the rows that either changes are written again, from the catalogue (a table of the main
-- database, as in 0021). Search results computed before are stale.
CREATE TABLE search_rewritten AS
    SELECT s.rowid AS album_id FROM album_search s
    WHERE crated_search_text(s.title) IS NOT s.title OR crated_search_text(s.artists) IS NOT s.artists
       OR crated_search_text(s.labels) IS NOT s.labels OR crated_search_text(s.tracks) IS NOT s.tracks
       OR crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = s.rowid))
          IS NOT s.catalog_numbers;
DELETE FROM album_search WHERE rowid IN (SELECT album_id FROM search_rewritten);
INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
SELECT a.id, crated_search_text(a.title),
       crated_search_artists(a.artist_credit,
           (SELECT group_concat(name, char(10)) FROM (SELECT ar.name FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                     WHERE aa.album_id = a.id ORDER BY aa.position))),
       crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = a.id)),
       crated_search_text(COALESCE((SELECT group_concat(title, ' ') FROM track WHERE album_id = a.id), ''))
FROM album a WHERE a.id IN (SELECT album_id FROM search_rewritten);
DROP TABLE search_rewritten;
UPDATE listing_generation SET value = value + 1;
