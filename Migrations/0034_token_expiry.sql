-- When a token stops opening the API (RFC 3339); NULL: it does not expire by date. Set by
-- `crated token create --expires-in-days N`. A token an app signed in for also stops once it has
-- gone unused for `tokens.signInIdleDays`, counted from last_used_at, which needs no column.
ALTER TABLE api_token ADD COLUMN expires_at TEXT;
