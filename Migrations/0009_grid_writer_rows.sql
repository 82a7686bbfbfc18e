-- A bulk writer that creates albums (the import) writes the grid rows (collection_album) of those new
-- albums itself, while it writes them: it has every copy of a new album in hand, so there is nothing to
-- recount. The deferral says from which album id on (the ids the writer gives are the largest):
--     INSERT INTO grid_deferral (id, writer_counts_from) VALUES (1, <first new album id>);
-- Copies of the albums before that id are noted in grid_pending and recounted at the end of the
-- deferral, as before; without writer_counts_from every copy is (migration 0005).
ALTER TABLE grid_deferral ADD COLUMN writer_counts_from INTEGER;

DROP TRIGGER collection_item_grid_insert_deferred;
CREATE TRIGGER collection_item_grid_insert_deferred AFTER INSERT ON collection_item
WHEN EXISTS (SELECT 1 FROM grid_deferral WHERE writer_counts_from IS NULL OR NEW.album_id < writer_counts_from)
BEGIN
    INSERT OR IGNORE INTO grid_pending (album_id, user_id) VALUES (NEW.album_id, NEW.user_id);
END;

-- The writer's own grid rows go in during the deferral, whose end advances the listing generation
-- once (migration 0007): the per-row triggers stay quiet until then.
DROP TRIGGER listing_generation_collection_album_insert;
DROP TRIGGER listing_generation_collection_album_update;
DROP TRIGGER listing_generation_collection_album_delete;
CREATE TRIGGER listing_generation_collection_album_insert AFTER INSERT ON collection_album
WHEN NOT EXISTS (SELECT 1 FROM grid_pending) AND NOT EXISTS (SELECT 1 FROM grid_deferral)
BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_collection_album_update AFTER UPDATE ON collection_album
WHEN NOT EXISTS (SELECT 1 FROM grid_pending) AND NOT EXISTS (SELECT 1 FROM grid_deferral)
BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_collection_album_delete AFTER DELETE ON collection_album
WHEN NOT EXISTS (SELECT 1 FROM grid_pending) AND NOT EXISTS (SELECT 1 FROM grid_deferral)
BEGIN UPDATE listing_generation SET value = value + 1; END;
