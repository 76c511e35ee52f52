CREATE TABLE projects (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects(id),
    key_hash        TEXT NOT NULL UNIQUE,
    scopes          TEXT NOT NULL,
    rate_requests   INTEGER NOT NULL DEFAULT 0,
    rate_window_ms  INTEGER NOT NULL DEFAULT 0,
    quota_per_month INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    revoked_at      INTEGER
);
CREATE INDEX api_keys_project ON api_keys(project_id);

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    user_id    TEXT NOT NULL,
    email      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

CREATE TABLE usage_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id     TEXT NOT NULL,
    project_id TEXT NOT NULL,
    route      TEXT NOT NULL,
    status     INTEGER NOT NULL,
    latency_us INTEGER NOT NULL,
    at         INTEGER NOT NULL
);
CREATE INDEX usage_events_key_at ON usage_events(key_id, at);

CREATE TABLE change_versions (
    topic   TEXT PRIMARY KEY,
    version INTEGER NOT NULL
);
