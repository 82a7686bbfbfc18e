-- Metadata sync from the Discogs API: one row per album that sync has tried.
-- An album without a row has never been synced (the import does not need to know about sync).
CREATE TABLE album_sync (
    album_id         INTEGER PRIMARY KEY REFERENCES album(id) ON DELETE CASCADE,
    status           TEXT NOT NULL CHECK (status IN ('never', 'synced', 'failed', 'not_found')),
    attempts         INTEGER NOT NULL DEFAULT 0,   -- failed attempts since the last success
    last_error       TEXT,                         -- why the last attempt failed; null once it succeeds
    next_attempt_at  TEXT,                         -- when a failed or not-found album is due again
    etag             TEXT,                         -- of the last release response, for If-None-Match
    last_synced_at   TEXT,                         -- last success: data written, or 304 Not Modified
    last_attempt_at  TEXT
);
CREATE INDEX album_sync_due ON album_sync(status, next_attempt_at);
CREATE INDEX album_sync_fresh ON album_sync(status, last_synced_at);
