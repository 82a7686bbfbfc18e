-- Tokens are looked up by their public prefix and then compared by hash in constant time,
-- so the prefix must identify one token.
CREATE UNIQUE INDEX api_token_prefix ON api_token(token_prefix);
