-- The search rows again, initialisms written as one word (`SearchText.joiningInitialisms`, now part
-- of crated_search_text): `L.A. Woman` is indexed as `LA Woman`, so that `la woman` finds it, where
-- the tokenizer's single letters matched no search. The stored text was spelled out already, so a
-- row whose text the function changes holds an initialism; only those rows are written again, from
-- the catalogue as `SearchIndex` writes them (a table of the main database, as in 0015). Search
-- results computed before are stale.
CREATE TABLE search_initialisms AS
    SELECT rowid AS album_id FROM album_search
    WHERE crated_search_text(title) IS NOT title OR crated_search_text(artists) IS NOT artists
       OR crated_search_text(labels) IS NOT labels OR crated_search_text(catalog_numbers) IS NOT catalog_numbers
       OR crated_search_text(tracks) IS NOT tracks;
DELETE FROM album_search WHERE rowid IN (SELECT album_id FROM search_initialisms);
INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
SELECT a.id, crated_search_text(a.title),
       crated_search_artists(a.artist_credit,
           (SELECT group_concat(name, char(10)) FROM (SELECT ar.name FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                     WHERE aa.album_id = a.id ORDER BY aa.position))),
       crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_text(COALESCE((SELECT group_concat(catalog_number, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_text(COALESCE((SELECT group_concat(title, ' ') FROM track WHERE album_id = a.id), ''))
FROM album a WHERE a.id IN (SELECT album_id FROM search_initialisms);
DROP TABLE search_initialisms;
UPDATE listing_generation SET value = value + 1;
