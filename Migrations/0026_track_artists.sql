-- The artists Discogs credits a track to, when they are not the album's (a compilation's tracks, a
-- split's sides, a featured guest): the credit line as shown, null when the track is the album's.
ALTER TABLE track ADD COLUMN artist_credit TEXT;

-- A play keeps the track's credit as it was, as it keeps the track's title.
ALTER TABLE play_history ADD COLUMN track_artist_credit TEXT;

-- Albums synced before have tracks without their artists, and a conditional request would only
-- answer 304: their ETag is dropped and they are due at the next pass (their real last sync is
-- not shown anywhere, only compared).
UPDATE album_sync SET etag = NULL, last_synced_at = '1970-01-01T00:00:00Z'
WHERE status = 'synced' AND EXISTS (SELECT 1 FROM track WHERE track.album_id = album_sync.album_id);
