-- What each user's turntable is doing, and what they have played.
-- Times here are epoch milliseconds (INTEGER): positions are computed from them, so they need
-- sub-second precision; the API formats them as RFC 3339.

-- One row per user once they have played anything; never deleted, so the revision only grows
-- (event streams resume by revision). The row holds facts, not positions: the position and the
-- track the record has advanced to are derived from these facts and the clock, and the derived
-- transitions are written back when they are noticed.
CREATE TABLE playback_state (
    user_id             INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
    revision            INTEGER NOT NULL CHECK (revision >= 0),
    status              TEXT NOT NULL CHECK (status IN ('idle', 'playing', 'paused')),
    needs_flip          INTEGER NOT NULL DEFAULT 0 CHECK (needs_flip IN (0, 1)),  -- paused at the end of a side
    -- No foreign keys on the album and track: a metadata sync may rewrite an album's track rows
    -- (the position 'B2' then finds the same track again), and a state whose album or track is
    -- gone simply settles to idle.
    album_id            INTEGER,
    track_id            INTEGER,
    track_position      TEXT,
    track_started_at_ms INTEGER,            -- playing: the instant the current track was at 0 ms
    position_ms         INTEGER,            -- paused (not at a side's end): where the track stopped
    since_ms            INTEGER,            -- playing: start of this uninterrupted stretch; paused: when paused
    -- The current play of the current track, for play history.
    play_started_at_ms  INTEGER,
    listened_ms         INTEGER NOT NULL DEFAULT 0,  -- heard before `since_ms`
    play_recorded       INTEGER NOT NULL DEFAULT 0 CHECK (play_recorded IN (0, 1)),
    listening_id        INTEGER,            -- revision at which this album was put on; groups one listening
    crate_id            INTEGER REFERENCES crate(id) ON DELETE SET NULL,
    queue_album_ids     TEXT NOT NULL DEFAULT '[]',  -- JSON array: albums still to come from a crate
    updated_at_ms       INTEGER NOT NULL,
    CHECK (status = 'idle' OR (album_id IS NOT NULL AND track_id IS NOT NULL AND track_position IS NOT NULL
                               AND since_ms IS NOT NULL AND play_started_at_ms IS NOT NULL
                               AND listening_id IS NOT NULL)),
    CHECK (status <> 'playing' OR track_started_at_ms IS NOT NULL),
    CHECK (status <> 'paused' OR needs_flip = 1 OR position_ms IS NOT NULL),
    CHECK (needs_flip = 0 OR status = 'paused')
);
-- The scheduler's start-up scan: every state that can still change by itself.
CREATE INDEX playback_state_active ON playback_state(status) WHERE status <> 'idle';

-- One row per play that counted: a track heard for half its length or 4 minutes, whichever came first.
-- Track title and position are copied so that history stays readable when a sync rewrites tracks.
CREATE TABLE play_history (
    id                INTEGER PRIMARY KEY,
    user_id           INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    album_id          INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    track_id          INTEGER,
    track_position    TEXT NOT NULL,
    track_title       TEXT NOT NULL,
    side              TEXT,
    duration_ms       INTEGER,
    listening_id      INTEGER NOT NULL,
    played_at_ms      INTEGER NOT NULL      -- when the play began
);
-- Newest first with a keyset cursor on (played_at_ms, id).
CREATE INDEX play_history_user_time ON play_history(user_id, played_at_ms, id);
-- Album detail: play count and last play.
CREATE INDEX play_history_user_album ON play_history(user_id, album_id, played_at_ms);
