-- A token an app got with its user's password (POST /v1/tokens). A new password revokes these, as it
-- ends the user's web sessions: whoever had guessed the old one keeps no way in.
ALTER TABLE api_token ADD COLUMN from_sign_in INTEGER NOT NULL DEFAULT 0;
