-- Discogs blanks the URLs of a release's images when it is asked without a token, so an album synced
-- so has no cover. Such an album is marked here, and a pass that has a token fetches it again, whole
-- (without its ETag: the release itself has not changed).
ALTER TABLE album_sync ADD COLUMN images_withheld INTEGER NOT NULL DEFAULT 0;
-- Albums synced before this migration: those without a single image may have been synced without a
-- token. Each is fetched once more when there is one; a release that truly has no image stays so.
UPDATE album_sync SET images_withheld = 1
WHERE status = 'synced' AND NOT EXISTS (SELECT 1 FROM album_image WHERE album_image.album_id = album_sync.album_id);
