-- The shared catalogue (artists, albums, tracks) and per-user collections, crates, users and tokens.
-- Times are RFC 3339 text in UTC, so they sort as text.

CREATE TABLE user (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) > 0),
    created_at  TEXT NOT NULL
);

CREATE TABLE api_token (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    label         TEXT,
    token_hash    BLOB NOT NULL UNIQUE,     -- SHA-256 of the token; the token itself is never stored
    token_prefix  TEXT NOT NULL,            -- first characters, to tell tokens apart in listings
    scope         TEXT NOT NULL CHECK (scope IN ('read', 'write')),
    created_at    TEXT NOT NULL,
    last_used_at  TEXT,
    revoked_at    TEXT
);
CREATE INDEX api_token_user ON api_token(user_id);

CREATE TABLE artist (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,            -- as shown: Discogs suffix "(2)" removed
    discogs_name  TEXT NOT NULL,            -- as Discogs writes it, suffix kept
    discogs_id    INTEGER UNIQUE,
    sort_name     TEXT NOT NULL             -- folded, lowercased, leading article moved out
);
-- Artists known only by name (from a CSV credit) are one row per Discogs name.
CREATE UNIQUE INDEX artist_unidentified_name ON artist(discogs_name) WHERE discogs_id IS NULL;
CREATE INDEX artist_discogs_name ON artist(discogs_name);
CREATE INDEX artist_sort ON artist(sort_name, id);

CREATE TABLE album (
    id                  INTEGER PRIMARY KEY,
    discogs_release_id  INTEGER UNIQUE,
    discogs_master_id   INTEGER,
    title               TEXT NOT NULL,
    sort_title          TEXT NOT NULL,
    artist_credit       TEXT NOT NULL,      -- the whole credit as shown, join phrases included
    artist_sort_name    TEXT NOT NULL,      -- sort key of the credit
    year                INTEGER,            -- null when unknown (Discogs writes 0)
    released            TEXT,               -- as Discogs gives it: 1999, 1999-03, 1999-03-15
    country             TEXT,
    format_summary      TEXT,               -- the export's abbreviated Format column
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);

CREATE TABLE album_artist (
    album_id     INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    artist_id    INTEGER NOT NULL REFERENCES artist(id),
    join_phrase  TEXT NOT NULL DEFAULT '',  -- what follows this artist in the credit: " & ", ", ", " Feat. "
    PRIMARY KEY (album_id, position)
) WITHOUT ROWID;
CREATE INDEX album_artist_artist ON album_artist(artist_id, album_id);

CREATE TABLE album_label (
    album_id        INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    name            TEXT NOT NULL,
    catalog_number  TEXT,                   -- null where Discogs writes "none"
    discogs_id      INTEGER,
    PRIMARY KEY (album_id, position)
) WITHOUT ROWID;

CREATE TABLE album_format (
    album_id      INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    name          TEXT NOT NULL,            -- LP, 12", 7", CD, Cass, File
    quantity      INTEGER NOT NULL DEFAULT 1,
    descriptions  TEXT NOT NULL DEFAULT '[]',  -- JSON array: ["Album", "RE", "Gat"]
    text          TEXT,                     -- free text such as a colour
    PRIMARY KEY (album_id, position)
) WITHOUT ROWID;
CREATE INDEX album_format_name ON album_format(name, album_id);

CREATE TABLE album_genre (
    album_id  INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('genre', 'style')),
    name      TEXT NOT NULL,
    position  INTEGER NOT NULL,
    PRIMARY KEY (album_id, kind, name)
) WITHOUT ROWID;
CREATE INDEX album_genre_name ON album_genre(kind, name, album_id);

CREATE TABLE album_image (
    album_id  INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('primary', 'secondary')),
    uri       TEXT NOT NULL,
    uri150    TEXT NOT NULL,
    width     INTEGER,
    height    INTEGER,
    PRIMARY KEY (album_id, position)
) WITHOUT ROWID;

CREATE TABLE track (
    id           INTEGER PRIMARY KEY,
    album_id     INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
    parent_id    INTEGER REFERENCES track(id) ON DELETE CASCADE,  -- set on the sub-tracks of an index track
    position     TEXT NOT NULL,             -- as printed: A1, B2, C1, A, 3
    side         TEXT,                      -- A, B, ... ; null when the position names no side
    sort_order   INTEGER NOT NULL,
    title        TEXT NOT NULL,
    duration_ms  INTEGER,                   -- null when unknown
    kind         TEXT NOT NULL CHECK (kind IN ('track', 'heading', 'index', 'subtrack'))
);
CREATE INDEX track_album ON track(album_id, sort_order);

CREATE TABLE collection_item (
    id                   INTEGER PRIMARY KEY,
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
CREATE INDEX collection_item_user_added ON collection_item(user_id, date_added, id);
CREATE UNIQUE INDEX collection_item_instance ON collection_item(user_id, discogs_instance_id)
    WHERE discogs_instance_id IS NOT NULL;

CREATE TABLE crate (
    id                 INTEGER PRIMARY KEY,
    user_id            INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    name               TEXT NOT NULL CHECK (length(trim(name)) > 0),
    discogs_folder_id  INTEGER,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    UNIQUE (user_id, name)
);

CREATE TABLE crate_item (
    crate_id  INTEGER NOT NULL REFERENCES crate(id) ON DELETE CASCADE,
    item_id   INTEGER NOT NULL REFERENCES collection_item(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    added_at  TEXT NOT NULL,
    PRIMARY KEY (crate_id, item_id)
) WITHOUT ROWID;
CREATE INDEX crate_item_order ON crate_item(crate_id, position);
CREATE INDEX crate_item_item ON crate_item(item_id);
