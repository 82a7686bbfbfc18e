-- A CSV credit is one artist until sync brings the release's real ones; then the credit's artist
-- row is deleted (no album names it). An app that kept its id (an artist page, a grid filtered by
-- it) got 404 after the first sync. The id now leads to the artist that took its place: the first
-- artist of the album that last named it. Ids are never reused (0024), so an old id cannot come to
-- name another artist.
CREATE TABLE artist_successor (
    artist_id INTEGER PRIMARY KEY,
    successor_id INTEGER NOT NULL REFERENCES artist(id) ON DELETE CASCADE
);
CREATE INDEX artist_successor_successor ON artist_successor(successor_id);
