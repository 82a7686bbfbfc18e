-- crated: foreign keys off
-- Copies and crates keep their ids for good. Without AUTOINCREMENT SQLite gives a new row the
-- largest id + 1: the id of the copy or crate deleted last, when it was the largest, so a client
-- holding that id (a page it read, a saved path, a grid cursor) reached another copy or crate
-- instead of a 404, and an edit meant for the old one changed the new. SQLite cannot add
-- AUTOINCREMENT to a table: both are made again with their rows, indexes and triggers as they were
-- (foreign keys off, so that dropping them deletes nothing that refers to them). The rows wait in
-- tables of the database, not TEMP ones: a connection whose temporary database is open cannot
-- change `temp_store` in a transaction, as the index builds of a bulk import do (`ImportIndexes`).

CREATE TABLE crate_rows AS SELECT * FROM crate;
DROP TABLE crate;
CREATE TABLE crate (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id            INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    name               TEXT NOT NULL CHECK (length(trim(name)) > 0),
    discogs_folder_id  INTEGER,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    is_folder          INTEGER NOT NULL DEFAULT 0 CHECK (is_folder IN (0, 1)),
    UNIQUE (user_id, name)
);
INSERT INTO crate (id, user_id, name, discogs_folder_id, created_at, updated_at, is_folder)
SELECT id, user_id, name, discogs_folder_id, created_at, updated_at, is_folder FROM crate_rows;
DROP TABLE crate_rows;

CREATE TABLE collection_item_rows AS SELECT * FROM collection_item;
DROP TABLE collection_item;
CREATE TABLE collection_item (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id              INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    album_id             INTEGER NOT NULL REFERENCES album(id),
    date_added           TEXT NOT NULL,
    copy_ordinal         INTEGER NOT NULL DEFAULT 0,  -- tells identical export rows (several copies) apart
    rating               INTEGER CHECK (rating BETWEEN 1 AND 5),
    media_condition      TEXT,
    sleeve_condition     TEXT,
    notes                TEXT,
    custom_fields        TEXT NOT NULL DEFAULT '{}',  -- JSON object: field name -> value
    discogs_instance_id  INTEGER,
    UNIQUE (user_id, album_id, date_added, copy_ordinal)
);
-- Before the triggers: the grid's tables already count these rows.
INSERT INTO collection_item (id, user_id, album_id, date_added, copy_ordinal, rating, media_condition,
                             sleeve_condition, notes, custom_fields, discogs_instance_id)
SELECT id, user_id, album_id, date_added, copy_ordinal, rating, media_condition,
       sleeve_condition, notes, custom_fields, discogs_instance_id
FROM collection_item_rows ORDER BY id;
DROP TABLE collection_item_rows;

CREATE INDEX collection_item_user_added ON collection_item(user_id, date_added, id);
CREATE UNIQUE INDEX collection_item_instance ON collection_item(user_id, discogs_instance_id)
    WHERE discogs_instance_id IS NOT NULL;
CREATE INDEX collection_item_album ON collection_item(album_id, user_id);

-- The triggers of 0005 and 0009, as they were.
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

CREATE TRIGGER collection_item_grid_delete AFTER DELETE ON collection_item BEGIN
    DELETE FROM collection_album WHERE user_id = OLD.user_id AND album_id = OLD.album_id;
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
    FROM collection_item c JOIN album a ON a.id = c.album_id
    WHERE c.user_id = OLD.user_id AND c.album_id = OLD.album_id
    GROUP BY c.user_id, c.album_id;
END;

CREATE TRIGGER collection_item_grid_update AFTER UPDATE OF user_id, album_id, date_added, rating ON collection_item BEGIN
    DELETE FROM collection_album WHERE user_id = OLD.user_id AND album_id = OLD.album_id;
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name, a.sort_title, COALESCE(a.year, 99999)
    FROM collection_item c JOIN album a ON a.id = c.album_id
    WHERE c.user_id = OLD.user_id AND c.album_id = OLD.album_id
    GROUP BY c.user_id, c.album_id;
END;

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

CREATE TRIGGER collection_item_grid_insert_deferred AFTER INSERT ON collection_item
WHEN EXISTS (SELECT 1 FROM grid_deferral WHERE writer_counts_from IS NULL OR NEW.album_id < writer_counts_from)
BEGIN
    INSERT OR IGNORE INTO grid_pending (album_id, user_id) VALUES (NEW.album_id, NEW.user_id);
END;
