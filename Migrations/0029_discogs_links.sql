-- The Discogs account whose collection each crated user's is, as the operator links them
-- (`crated user link`). A pass started through the API may bring in step only the collection linked
-- to its user: it reads it with the server's Discogs token, which lists private collections and
-- their owner's notes. The link goes with its user.
CREATE TABLE discogs_link (
    user_id       INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
    discogs_user  TEXT NOT NULL
);
-- One crated user per Discogs account; Discogs' names are the same whatever their case.
CREATE UNIQUE INDEX discogs_link_name ON discogs_link(discogs_user COLLATE NOCASE);
