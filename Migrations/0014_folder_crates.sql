-- Whether a crate stands for a Discogs folder: made or found by name by a CSV import from the
-- folder's `CollectionFolder`, or linked by collection sync to the folder's id. A copy that Discogs
-- moved to another folder joins that folder's crate and leaves the user's other folder crates on the
-- next import or sync; crates that are not folders are never touched. Renaming a crate that sync has
-- not linked, or a folder deleted on Discogs, makes it an ordinary crate.
ALTER TABLE crate ADD COLUMN is_folder INTEGER NOT NULL DEFAULT 0 CHECK (is_folder IN (0, 1));
-- Crates an earlier CSV import made cannot be told from the user's own: each becomes a folder
-- crate when an import next names its folder.
UPDATE crate SET is_folder = 1 WHERE discogs_folder_id IS NOT NULL;
