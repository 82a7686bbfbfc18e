-- Sub-tracks point at their index track (track.parent_id, ON DELETE CASCADE). Without an index, every
-- track that release sync deletes made SQLite scan the whole track table for sub-tracks to delete with
-- it, so re-syncing an album grew slower as the catalogue grew.
CREATE INDEX track_parent ON track(parent_id);
