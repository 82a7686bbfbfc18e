-- Crate contents get a generation of their own. Filing records into crates is the most frequent edit a
-- collector makes, and only grids that a crate restricts list crate contents: counted in the listing
-- generation, every such edit threw away the snapshot of every grid, which a walk of the whole
-- collection rebuilds. Caches of what crates hold (crate grids, crate counts) follow both numbers
-- (ListingGeneration.current is their sum); the rest follow the listing generation alone.
CREATE TABLE crate_generation (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    value  INTEGER NOT NULL
);
INSERT INTO crate_generation (id, value) VALUES (1, 0);

DROP TRIGGER listing_generation_crate_insert;
DROP TRIGGER listing_generation_crate_update;
DROP TRIGGER listing_generation_crate_delete;

CREATE TRIGGER crate_generation_insert AFTER INSERT ON crate_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE crate_generation SET value = value + 1; END;
CREATE TRIGGER crate_generation_update AFTER UPDATE ON crate_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE crate_generation SET value = value + 1; END;
CREATE TRIGGER crate_generation_delete AFTER DELETE ON crate_item
WHEN NOT EXISTS (SELECT 1 FROM grid_deferral) BEGIN UPDATE crate_generation SET value = value + 1; END;

-- An import files its copies into crates inside its deferral, where the triggers above stay quiet.
CREATE TRIGGER crate_generation_deferral_end AFTER DELETE ON grid_deferral BEGIN
    UPDATE crate_generation SET value = value + 1;
END;
