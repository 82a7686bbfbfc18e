-- Indexes the API's reads need.

-- Tokens are looked up by their public prefix and then compared by hash in constant time,
-- so the prefix must identify one token.
CREATE UNIQUE INDEX api_token_prefix ON api_token(token_prefix);

-- A user's copies of one album (album detail, artist pages, search results): without it SQLite
-- walks all of the user's copies in date order.
CREATE INDEX collection_item_album ON collection_item(album_id, user_id);
