-- Label names an import stored with Discogs' disambiguation suffix (`Roots Records (3)`) lose it, as
-- the import now writes them (`DiscogsText.labels`) and sync always has: an album page showed the
-- suffix until the album's release synced. The search rows of those albums index the names again.
-- Labels do not order or filter a grid, but search does, so listings computed before are stale.
CREATE TABLE labels_renamed AS
    SELECT DISTINCT album_id FROM album_label WHERE name IS NOT crated_display_name(name);
UPDATE album_label SET name = crated_display_name(name)
WHERE album_id IN (SELECT album_id FROM labels_renamed) AND name IS NOT crated_display_name(name);
UPDATE album_search
SET labels = crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = album_search.rowid), ''))
WHERE rowid IN (SELECT album_id FROM labels_renamed);
DROP TABLE labels_renamed;
UPDATE listing_generation SET value = value + 1;
