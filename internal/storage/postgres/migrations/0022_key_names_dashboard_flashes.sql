-- API keys get a display name (the dashboard's and `keys create --name`'s;
-- empty for keys made before). The dashboard's one-shot confirmations
-- ("flashes", internal/dashboard): written by a form's POST, read and
-- deleted by the GET it redirects to, so every replica can show it and a
-- reload cannot show it twice. The payload is sealed with a key derived
-- from the user's session token, which the store never holds.
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';

CREATE TABLE dashboard_flashes (
    id         TEXT PRIMARY KEY,
    payload    BYTEA NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX dashboard_flashes_expires ON dashboard_flashes(expires_at);
