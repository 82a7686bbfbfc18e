-- Sort keys again (crated_sort_key, `DiscogsText.sortKey`): leading punctuation no longer decides a
-- title's place (`'Allelujah!` sorted before every letter, `»Eroica«` after `z`), and letters are
-- spelled out as search spells them (`Chœur` sorts with `choeur`). Only the rows whose key changes
-- are written; the grid's copies of the keys follow by the album_grid_keys trigger.
UPDATE album SET sort_title = crated_sort_key(title) WHERE sort_title IS NOT crated_sort_key(title);
UPDATE album SET artist_sort_name = crated_sort_key(artist_credit) WHERE artist_sort_name IS NOT crated_sort_key(artist_credit);
UPDATE artist SET sort_name = crated_sort_key(name) WHERE sort_name IS NOT crated_sort_key(name);
