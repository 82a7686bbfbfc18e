-- The artists column of the search rows again, now with the names of an album's artists that its
-- credit does not name (crated_search_artists, `SearchText.searchableArtists`): a release credits
-- an artist under a name variation, and a search for the artist's own name must find it. Only the
-- rows whose text changes are written (a table of the main database, as in 0015).
CREATE TABLE search_artists_named AS
    SELECT album_id, artists FROM (
        SELECT a.id AS album_id, s.artists AS indexed,
               crated_search_artists(a.artist_credit,
                   (SELECT group_concat(name, char(10)) FROM (SELECT ar.name FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                             WHERE aa.album_id = a.id ORDER BY aa.position))) AS artists
        FROM album a JOIN album_search s ON s.rowid = a.id)
    WHERE artists IS NOT indexed;
UPDATE album_search SET artists = (SELECT artists FROM search_artists_named WHERE album_id = album_search.rowid)
WHERE rowid IN (SELECT album_id FROM search_artists_named);
DROP TABLE search_artists_named;
