-- Covers crated keeps itself (docs/design.md, "Artwork"). One row per image URL a cover comes from:
-- the full image, else the thumbnail. `key` names it in crated's own artwork URLs: random, so that a
-- URL reveals no album and none can be guessed from another.
CREATE TABLE artwork (
    id            INTEGER PRIMARY KEY,
    source_url    TEXT NOT NULL UNIQUE,
    key           TEXT NOT NULL UNIQUE,
    -- The original's content hash (hex), which names its file; null until fetched and after eviction.
    sha256        TEXT,
    bytes         INTEGER,
    format        TEXT,
    -- As displayed (orientation applied), and the dominant colour as #rrggbb: kept after eviction,
    -- so answers do not change when a file is evicted and fetched again.
    width         INTEGER,
    height        INTEGER,
    color         TEXT,
    -- For conditional requests to the image host.
    etag          TEXT,
    last_modified TEXT,
    fetched_at    TEXT,
    failures      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT,
    -- No fetch before this time (RFC 3339) after a failure.
    retry_at      TEXT,
    -- Last served (eviction order), at most a minute stale.
    used_at       TEXT
);
CREATE INDEX artwork_sha256 ON artwork (sha256) WHERE sha256 IS NOT NULL;

-- Resized copies of an original, one file each, made on first request.
CREATE TABLE artwork_variant (
    sha256   TEXT NOT NULL,
    width    INTEGER NOT NULL,
    format   TEXT NOT NULL,
    height   INTEGER NOT NULL,
    bytes    INTEGER NOT NULL,
    used_at  TEXT NOT NULL,
    PRIMARY KEY (sha256, width, format)
) WITHOUT ROWID;
CREATE INDEX artwork_variant_used ON artwork_variant (used_at);

-- Answers show a cover's colour and size once it is fetched: grid cells and search results follow
-- this number too (ListingGeneration, reach `listingsAndArtwork`), grid snapshots do not.
CREATE TABLE artwork_generation (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    value  INTEGER NOT NULL
);
INSERT INTO artwork_generation (id, value) VALUES (1, 0);

CREATE TRIGGER artwork_generation_shown AFTER UPDATE OF color, width, height ON artwork
WHEN OLD.color IS NOT NEW.color OR OLD.width IS NOT NEW.width OR OLD.height IS NOT NEW.height
BEGIN UPDATE artwork_generation SET value = value + 1; END;

CREATE TRIGGER artwork_source_insert AFTER INSERT ON album_image
WHEN NEW.uri <> '' OR NEW.uri150 <> '' BEGIN
    INSERT OR IGNORE INTO artwork (source_url, key)
    VALUES (CASE WHEN NEW.uri <> '' THEN NEW.uri ELSE NEW.uri150 END, lower(hex(randomblob(16))));
END;
CREATE TRIGGER artwork_source_update AFTER UPDATE OF uri, uri150 ON album_image
WHEN NEW.uri <> '' OR NEW.uri150 <> '' BEGIN
    INSERT OR IGNORE INTO artwork (source_url, key)
    VALUES (CASE WHEN NEW.uri <> '' THEN NEW.uri ELSE NEW.uri150 END, lower(hex(randomblob(16))));
END;

INSERT OR IGNORE INTO artwork (source_url, key)
SELECT CASE WHEN uri <> '' THEN uri ELSE uri150 END, lower(hex(randomblob(16)))
FROM album_image WHERE uri <> '' OR uri150 <> '';
