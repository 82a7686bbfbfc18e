-- What listings are computed from, as one number: the listing generation changes in every transaction
-- that changes which albums a grid or a search can list, or their order, and in no other. The daemon
-- keeps a grid's position snapshot and a search's ranking for the generation they were computed at,
-- read inside the same transaction, so each is reused exactly as long as it is right, whichever process
-- wrote. Commits that leave listings alone (sync state, tokens, the player) no longer throw away
-- snapshots that take a walk of the whole collection to rebuild.
--
-- Grids hold collection_album rows (membership, copies, sort keys), filtered by crates, artists,
-- genres, styles and formats and by the search index. The search index (a virtual table, which takes
-- no triggers) advances the generation itself when it is rewritten (SearchIndex.swift). Search results
-- also show each album's copy count and cover thumbnail, so album images count too.
--
-- While a bulk writer defers the grid upkeep (grid_deferral, Migrations/0005_grid.sql) the per-row
-- triggers stay quiet and the end of the deferral counts once.
CREATE TABLE listing_generation (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    value  INTEGER NOT NULL
);
INSERT INTO listing_generation (id, value) VALUES (1, 0);

CREATE TRIGGER listing_generation_deferral_end AFTER DELETE ON grid_deferral BEGIN
    UPDATE listing_generation SET value = value + 1;
END;

-- The deferral's own recount rewrites collection_album while grid_pending holds its albums.
CREATE TRIGGER listing_generation_collection_album_insert AFTER INSERT ON collection_album
WHEN NOT EXISTS (SELECT 1 FROM grid_pending) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_collection_album_update AFTER UPDATE ON collection_album
WHEN NOT EXISTS (SELECT 1 FROM grid_pending) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_collection_album_delete AFTER DELETE ON collection_album
WHEN NOT EXISTS (SELECT 1 FROM grid_pending) BEGIN UPDATE listing_generation SET value = value + 1; END;

CREATE TRIGGER listing_generation_crate_insert AFTER INSERT ON crate_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_crate_update AFTER UPDATE ON crate_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_crate_delete AFTER DELETE ON crate_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;

-- The catalogue: titles and credits (the search index follows them), artists, genres, styles, covers.
-- Album credits (album_artist) and formats take no triggers of their own: only the import writes them
-- for new albums, inside its deferral, where a trigger would cost every INSERT a statement journal, and
-- release sync, which rewrites them together with the album row.
CREATE TRIGGER listing_generation_catalogue_album AFTER UPDATE ON album
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_catalogue_artist AFTER UPDATE ON artist
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_genre_insert AFTER INSERT ON album_genre
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_genre_delete AFTER DELETE ON album_genre
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_genre_update AFTER UPDATE ON album_genre
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_image_insert AFTER INSERT ON album_image
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_image_update AFTER UPDATE ON album_image
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
CREATE TRIGGER listing_generation_image_delete AFTER DELETE ON album_image
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE listing_generation SET value = value + 1; END;
