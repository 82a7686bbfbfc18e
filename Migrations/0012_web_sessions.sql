-- The web client's sign-in (issue 16). A password is kept apart from the user row: most users of an
-- API server never set one, and a user without a row here cannot sign in through the page.
CREATE TABLE user_password (
    user_id     INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
    -- bcrypt, `$2b$<cost>$<salt and hash>`; the cost is read back from it.
    hash        TEXT NOT NULL,
    changed_at  TEXT NOT NULL
);

-- A signed-in browser. Each session stands behind an api_token row of its own (write scope, labelled
-- as a web session), so everything that follows a token follows a session too: `crated token list`
-- shows it, `crated token revoke` ends it, and an event stream ends within two seconds of sign-out.
-- The cookie's secret is stored only as its SHA-256; the CSRF token is not a secret from the page
-- (it reads it), only from other sites.
CREATE TABLE web_session (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    token_id     INTEGER NOT NULL UNIQUE REFERENCES api_token(id) ON DELETE CASCADE,
    secret_hash  BLOB NOT NULL UNIQUE,
    csrf_token   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL
);
CREATE INDEX web_session_user ON web_session(user_id);
