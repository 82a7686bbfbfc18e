-- The search rows again, each word that apostrophes or hyphens join also written without them
-- (`SearchText.withWordsJoined`, now part of crated_search_text): `Sgt. Pepper's` is indexed with
-- `Peppers` too and `Hi-Fi` with `HiFi`, so that `sgt peppers` and `hifi` find them, where the
-- tokenizer's split words did not. Only the rows the function changes are written again, from the
-- catalogue as `SearchIndex` writes them (a table of the main database, as in 0025). Search results
-- computed before are stale.
CREATE TABLE search_words_joined AS
    SELECT s.rowid AS album_id FROM album_search s
    WHERE crated_search_text(s.title) IS NOT s.title OR crated_search_text(s.artists) IS NOT s.artists
       OR crated_search_text(s.labels) IS NOT s.labels OR crated_search_text(s.tracks) IS NOT s.tracks
       OR crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = s.rowid))
          IS NOT s.catalog_numbers;
DELETE FROM album_search WHERE rowid IN (SELECT album_id FROM search_words_joined);
INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
SELECT a.id, crated_search_text(a.title),
       crated_search_artists(a.artist_credit,
           (SELECT group_concat(name, char(10)) FROM (SELECT ar.name FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                     WHERE aa.album_id = a.id ORDER BY aa.position))),
       crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = a.id)),
       crated_search_text(COALESCE((SELECT group_concat(title || COALESCE(' ' || artist_credit, ''), ' ') FROM track WHERE album_id = a.id), '')
                          || COALESCE(' ' || (SELECT group_concat(name || COALESCE(' ' || credited_name, ''), ' ')
                                              FROM album_credit WHERE album_id = a.id), ''))
FROM album a WHERE a.id IN (SELECT album_id FROM search_words_joined);
DROP TABLE search_words_joined;
UPDATE listing_generation SET value = value + 1;
