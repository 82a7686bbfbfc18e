-- The search rows again, each Han, hiragana and katakana character a word of its own
-- (`SearchText.separatingIdeographs`, now part of crated_search_text): `坂本龍一` is indexed as
-- `坂 本 龍 一`, so that `龍一` finds it, where the tokenizer took the run as one word that only a
-- search of its start reached. A row whose text the function changes holds such characters; only
-- those rows are written again, from the catalogue as `SearchIndex` writes them (a table of the
-- main database, as in 0021). Search results computed before are stale.
CREATE TABLE search_ideographs AS
    SELECT rowid AS album_id FROM album_search
    WHERE crated_search_text(title) IS NOT title OR crated_search_text(artists) IS NOT artists
       OR crated_search_text(labels) IS NOT labels OR crated_search_text(catalog_numbers) IS NOT catalog_numbers
       OR crated_search_text(tracks) IS NOT tracks;
DELETE FROM album_search WHERE rowid IN (SELECT album_id FROM search_ideographs);
INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
SELECT a.id, crated_search_text(a.title),
       crated_search_artists(a.artist_credit,
           (SELECT group_concat(name, char(10)) FROM (SELECT ar.name FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                     WHERE aa.album_id = a.id ORDER BY aa.position))),
       crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = a.id)),
       crated_search_text(COALESCE((SELECT group_concat(title, ' ') FROM track WHERE album_id = a.id), ''))
FROM album a WHERE a.id IN (SELECT album_id FROM search_ideographs);
DROP TABLE search_ideographs;
UPDATE listing_generation SET value = value + 1;
