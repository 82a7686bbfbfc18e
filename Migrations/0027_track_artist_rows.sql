-- The artists Discogs credits a track to, as artist rows, when they are not the album's (the
-- tracks with a `track.artist_credit`): an artist's page lists the albums they appear on.
CREATE TABLE track_artist (
    track_id   INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    artist_id  INTEGER NOT NULL REFERENCES artist(id),
    join_phrase TEXT NOT NULL,               -- what follows the artist in the track's credit
    PRIMARY KEY (track_id, position)
) WITHOUT ROWID;
CREATE INDEX track_artist_artist ON track_artist(artist_id, track_id);

-- Albums synced with tracks of their own artists have the credit lines but not the rows: their
-- ETag is dropped and they are due at the next pass, as in 0026.
UPDATE album_sync SET etag = NULL, last_synced_at = '1970-01-01T00:00:00Z'
WHERE status = 'synced'
  AND EXISTS (SELECT 1 FROM track WHERE track.album_id = album_sync.album_id AND track.artist_credit IS NOT NULL);
