-- The search rows again, their text spelled out by crated_search_text (`SearchText.spelledOut`):
-- letters that unicode61 cannot fold (ø, æ, œ, ß, ð, þ, ł, ligatures) become the letters a search
-- types for them, so that `royksopp` finds Røyksopp. The function is crated's own, registered on
-- each of its connections and by its migrator. Only the rows whose text it changes are written.
-- A table of the main database, dropped at the end: a TEMP one would leave the connection's temp
-- database open, and the import then cannot change temp_store.
CREATE TABLE search_respelled AS
    SELECT rowid AS album_id FROM album_search
    WHERE crated_search_text(title) IS NOT title OR crated_search_text(artists) IS NOT artists
       OR crated_search_text(labels) IS NOT labels OR crated_search_text(catalog_numbers) IS NOT catalog_numbers
       OR crated_search_text(tracks) IS NOT tracks;
DELETE FROM album_search WHERE rowid IN (SELECT album_id FROM search_respelled);
INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
SELECT a.id, crated_search_text(a.title),
       crated_search_text(a.artist_credit),
       crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_text(COALESCE((SELECT group_concat(catalog_number, ' ') FROM album_label WHERE album_id = a.id), '')),
       crated_search_text(COALESCE((SELECT group_concat(title, ' ') FROM track WHERE album_id = a.id), ''))
FROM album a WHERE a.id IN (SELECT album_id FROM search_respelled);
DROP TABLE search_respelled;
