-- The people Discogs credits on a release beyond its artists (`extraartists`: producers, engineers,
-- writers, designers), on the whole release or on one track, with the role as Discogs writes it.
-- A credit names its person without an artist row: an artist page for every engineer would bury the
-- collection's artists. The album page links a credit to an artist row with the same Discogs id.
CREATE TABLE album_credit (
    album_id      INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,              -- the release's credits, then each track's, in order
    track_id      INTEGER REFERENCES track(id) ON DELETE CASCADE,  -- null for the whole release
    name          TEXT NOT NULL,                 -- as shown: Discogs suffix removed
    discogs_name  TEXT NOT NULL,
    credited_name TEXT,                          -- the name variation printed on the release, if any
    discogs_id    INTEGER,
    role          TEXT NOT NULL,                 -- `Producer`, `Written-By`, `Music By [All Tracks By]`
    tracks        TEXT,                          -- which tracks a release credit covers: `A1 to A3, B2`
    PRIMARY KEY (album_id, position)
) WITHOUT ROWID;
CREATE INDEX album_credit_track ON album_credit(track_id) WHERE track_id IS NOT NULL;
-- An artist's page lists the albums they are credited on.
CREATE INDEX album_credit_person ON album_credit(discogs_id, album_id) WHERE discogs_id IS NOT NULL;
-- Albums synced before have no credits, and a conditional request would only answer 304: their
-- ETag is dropped, whatever their last attempt did (a failed one keeps it for its retry), and the
-- synced ones are due at the next pass, as in 0026.
UPDATE album_sync SET etag = NULL,
    last_synced_at = CASE WHEN status = 'synced' THEN '1970-01-01T00:00:00Z' ELSE last_synced_at END
WHERE EXISTS (SELECT 1 FROM track WHERE track.album_id = album_sync.album_id);
