-- Album grids: one row per album in a user's collection, holding every sort key of the grid, so that
-- each sort is one index walk in order (a keyset page is an index seek, a position is an index-range
-- COUNT) instead of a GROUP BY over the user's copies and a sort on every request.
-- Kept up to date by triggers on collection_item (copies, latest date added, best rating) and on album
-- (the catalogue's sort keys, which sync may rewrite).
--
-- A bulk writer (the import) can defer the upkeep of new copies to the end of its transaction, where
-- one statement recounts every album it touched, several times cheaper than a trigger per row:
--     INSERT INTO grid_deferral (id) VALUES (1);   -- after BEGIN, before the first copy
--     ...
--     DELETE FROM grid_deferral;                   -- after the last copy, before COMMIT
CREATE TABLE collection_album (
    user_id       INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    album_id      INTEGER NOT NULL REFERENCES album(id),
    copies        INTEGER NOT NULL,         -- the user's copies of the album
    latest_added  TEXT NOT NULL,            -- date added of the user's latest copy (RFC 3339, sorts as text)
    best_rating   INTEGER NOT NULL,         -- the best rating of the user's copies; 0 when none is rated
    artist_key    TEXT NOT NULL,            -- album.artist_sort_name
    title_key     TEXT NOT NULL,            -- album.sort_title
    year_key      INTEGER NOT NULL,         -- album.year; 99999 when unknown, so unknown years sort last
    -- album first: the album trigger and the foreign key find an album's rows by it.
    PRIMARY KEY (album_id, user_id)
) WITHOUT ROWID;

-- One index per sort: (user, sort key, album id) is the keyset order of that grid.
CREATE INDEX collection_album_artist ON collection_album(user_id, artist_key, album_id);
CREATE INDEX collection_album_title ON collection_album(user_id, title_key, album_id);
CREATE INDEX collection_album_year ON collection_album(user_id, year_key, album_id);
CREATE INDEX collection_album_added ON collection_album(user_id, latest_added, album_id);
CREATE INDEX collection_album_rating ON collection_album(user_id, best_rating, album_id);

INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
       a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
FROM collection_item c JOIN album a ON a.id = c.album_id
GROUP BY c.user_id, c.album_id;

-- Holds a row while a bulk writer defers the upkeep; the albums of the copies it adds wait in
-- grid_pending until the row is deleted. Neither is ever seen outside that transaction: the row's
-- deferred foreign key names a parent that never exists, so a transaction that would commit with the
-- deferral still open fails instead of leaving grids that no longer follow the collection.
CREATE TABLE grid_deferral_guard (id INTEGER PRIMARY KEY);
CREATE TABLE grid_deferral (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    must_end   INTEGER NOT NULL DEFAULT 1 REFERENCES grid_deferral_guard(id) DEFERRABLE INITIALLY DEFERRED
);
CREATE TABLE grid_pending (
    album_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    PRIMARY KEY (album_id, user_id)
) WITHOUT ROWID;

-- A new copy: an upsert that touches one row rather than a recount.
CREATE TRIGGER collection_item_grid_insert AFTER INSERT ON collection_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral)
BEGIN
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT NEW.user_id, NEW.album_id, 1, NEW.date_added, COALESCE(NEW.rating, 0),
           a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
    FROM album a WHERE a.id = NEW.album_id
    ON CONFLICT (album_id, user_id) DO UPDATE SET
        copies = copies + 1,
        latest_added = max(latest_added, excluded.latest_added),
        best_rating = max(best_rating, excluded.best_rating);
END;

-- A new copy while the upkeep is deferred: only noted.
CREATE TRIGGER collection_item_grid_insert_deferred AFTER INSERT ON collection_item
WHEN EXISTS (SELECT 1 FROM grid_deferral)
BEGIN
    INSERT OR IGNORE INTO grid_pending (album_id, user_id) VALUES (NEW.album_id, NEW.user_id);
END;

-- The end of a deferral: every album noted is recounted at once.
CREATE TRIGGER grid_deferral_end AFTER DELETE ON grid_deferral BEGIN
    DELETE FROM collection_album WHERE (album_id, user_id) IN (SELECT album_id, user_id FROM grid_pending);
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
    FROM grid_pending p
    JOIN collection_item c ON c.user_id = p.user_id AND c.album_id = p.album_id
    JOIN album a ON a.id = p.album_id
    GROUP BY p.album_id, p.user_id;
    DELETE FROM grid_pending;
END;

-- A removed copy: recount the album's copies of that user; the row goes with the last copy.
CREATE TRIGGER collection_item_grid_delete AFTER DELETE ON collection_item BEGIN
    DELETE FROM collection_album WHERE user_id = OLD.user_id AND album_id = OLD.album_id;
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
    FROM collection_item c JOIN album a ON a.id = c.album_id
    WHERE c.user_id = OLD.user_id AND c.album_id = OLD.album_id
    GROUP BY c.user_id, c.album_id;
END;

-- A changed copy (rating, date added, album or owner): recount the album it was in. Each pair is
-- recounted on its own: an OR of the two pairs would walk the user's whole collection.
CREATE TRIGGER collection_item_grid_update AFTER UPDATE OF user_id, album_id, date_added, rating ON collection_item BEGIN
    DELETE FROM collection_album WHERE user_id = OLD.user_id AND album_id = OLD.album_id;
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
    FROM collection_item c JOIN album a ON a.id = c.album_id
    WHERE c.user_id = OLD.user_id AND c.album_id = OLD.album_id
    GROUP BY c.user_id, c.album_id;
END;

-- A copy moved to another album or owner: recount the album it is in now.
CREATE TRIGGER collection_item_grid_move AFTER UPDATE OF user_id, album_id ON collection_item
WHEN OLD.user_id IS NOT NEW.user_id OR OLD.album_id IS NOT NEW.album_id
BEGIN
    DELETE FROM collection_album WHERE user_id = NEW.user_id AND album_id = NEW.album_id;
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
    FROM collection_item c JOIN album a ON a.id = c.album_id
    WHERE c.user_id = NEW.user_id AND c.album_id = NEW.album_id
    GROUP BY c.user_id, c.album_id;
END;

-- The catalogue's sort keys changed (sync rewrites titles, credits and years): follow them.
CREATE TRIGGER album_grid_keys AFTER UPDATE OF artist_sort_name, sort_title, year ON album
WHEN OLD.artist_sort_name IS NOT NEW.artist_sort_name OR OLD.sort_title IS NOT NEW.sort_title OR OLD.year IS NOT NEW.year
BEGIN
    UPDATE collection_album
    SET artist_key = NEW.artist_sort_name, title_key = NEW.sort_title, year_key = COALESCE(NEW.year, 99999)
    WHERE album_id = NEW.id;
END;
