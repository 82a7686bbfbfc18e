-- Two changes to how grids order albums:
-- * Numbers in titles and names sort by value (`DiscogsText.sortKey`): `Vol. 2` before `Vol. 10`.
-- * In the artist sort, one artist's albums came in the order the catalogue got them. The artist key
--   now holds the year and title after the credit (`GridKey.artist`), so they come by year, then
--   title, as on the artist's page; unknown years last.
-- The triggers of 0005 and 0024 are made again with that key; nothing else in them changes.
DROP TRIGGER collection_item_grid_insert;
DROP TRIGGER grid_deferral_end;
DROP TRIGGER collection_item_grid_delete;
DROP TRIGGER collection_item_grid_update;
DROP TRIGGER collection_item_grid_move;
DROP TRIGGER album_grid_keys;

CREATE TRIGGER collection_item_grid_insert AFTER INSERT ON collection_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral)
BEGIN
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT NEW.user_id, NEW.album_id, 1, NEW.date_added, COALESCE(NEW.rating, 0),
           a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title,
           a.sort_title, COALESCE(a.year, 99999)
    FROM album a WHERE a.id = NEW.album_id
    ON CONFLICT (album_id, user_id) DO UPDATE SET
        copies = copies + 1,
        latest_added = max(latest_added, excluded.latest_added),
        best_rating = max(best_rating, excluded.best_rating);
END;

CREATE TRIGGER grid_deferral_end AFTER DELETE ON grid_deferral BEGIN
    DELETE FROM collection_album WHERE (album_id, user_id) IN (SELECT album_id, user_id FROM grid_pending);
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title,
           a.sort_title, COALESCE(a.year, 99999)
    FROM grid_pending p
    JOIN collection_item c ON c.user_id = p.user_id AND c.album_id = p.album_id
    JOIN album a ON a.id = p.album_id
    GROUP BY p.album_id, p.user_id;
    DELETE FROM grid_pending;
END;

CREATE TRIGGER collection_item_grid_delete AFTER DELETE ON collection_item BEGIN
    DELETE FROM collection_album WHERE user_id = OLD.user_id AND album_id = OLD.album_id;
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title,
           a.sort_title, COALESCE(a.year, 99999)
    FROM collection_item c JOIN album a ON a.id = c.album_id
    WHERE c.user_id = OLD.user_id AND c.album_id = OLD.album_id
    GROUP BY c.user_id, c.album_id;
END;

CREATE TRIGGER collection_item_grid_update AFTER UPDATE OF user_id, album_id, date_added, rating ON collection_item BEGIN
    DELETE FROM collection_album WHERE user_id = OLD.user_id AND album_id = OLD.album_id;
    INSERT INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
    SELECT c.user_id, c.album_id, COUNT(*), MAX(c.date_added), COALESCE(MAX(c.rating), 0),
           a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title,
           a.sort_title, COALESCE(a.year, 99999)
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
           a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title,
           a.sort_title, COALESCE(a.year, 99999)
    FROM collection_item c JOIN album a ON a.id = c.album_id
    WHERE c.user_id = NEW.user_id AND c.album_id = NEW.album_id
    GROUP BY c.user_id, c.album_id;
END;

CREATE TRIGGER album_grid_keys AFTER UPDATE OF artist_sort_name, sort_title, year ON album
WHEN OLD.artist_sort_name IS NOT NEW.artist_sort_name OR OLD.sort_title IS NOT NEW.sort_title OR OLD.year IS NOT NEW.year
BEGIN
    UPDATE collection_album
    SET artist_key = NEW.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(NEW.year, 99999), 0), 99999)) || char(31) || NEW.sort_title,
        title_key = NEW.sort_title, year_key = COALESCE(NEW.year, 99999)
    WHERE album_id = NEW.id;
END;

-- The keys again; the grid's copies follow by album_grid_keys, then every artist key is made anew.
UPDATE album SET sort_title = crated_sort_key(title) WHERE sort_title IS NOT crated_sort_key(title);
UPDATE album SET artist_sort_name = crated_sort_key(artist_credit) WHERE artist_sort_name IS NOT crated_sort_key(artist_credit);
UPDATE artist SET sort_name = crated_sort_key(name) WHERE sort_name IS NOT crated_sort_key(name);
UPDATE collection_album SET artist_key = (
    SELECT a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title
    FROM album a WHERE a.id = collection_album.album_id)
WHERE artist_key IS NOT (
    SELECT a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title
    FROM album a WHERE a.id = collection_album.album_id);
