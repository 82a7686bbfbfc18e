-- The search rows of albums with Greek text, written again by crated_search_text, which now writes
-- Greek letters without their tonos or dialytika and the final sigma as σ (`SearchText.spelledOut`):
-- unicode61 folds accents of Latin letters only, so `ωμεγα` did not find `Ωμέγα`. Only the
-- rows with Greek letters (U+0386 to U+03CE) are written again, from the catalogue as `SearchIndex`
-- writes them (as in 0035). Search results computed before are stale.
CREATE TABLE search_greek_unaccented AS
    SELECT s.rowid AS album_id FROM album_search s
    WHERE COALESCE(s.title, '') || ' ' || COALESCE(s.artists, '') || ' ' || COALESCE(s.labels, '') || ' ' || COALESCE(s.tracks, '')
          GLOB '*[Ά-ώ]*';
DELETE FROM album_search WHERE rowid IN (SELECT album_id FROM search_greek_unaccented);
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
FROM album a WHERE a.id IN (SELECT album_id FROM search_greek_unaccented);
DROP TABLE search_greek_unaccented;
UPDATE listing_generation SET value = value + 1;
