-- Usage counted per key, route, status and UTC minute (internal/usage),
-- replacing one row per request. Existing events are folded in, then
-- dropped. Rows older than the retention are pruned by the server.
CREATE TABLE usage_minutes (
    key_id     TEXT NOT NULL,
    project_id TEXT NOT NULL,
    route      TEXT NOT NULL,
    status     INTEGER NOT NULL,
    minute     INTEGER NOT NULL,
    requests   INTEGER NOT NULL,
    charged    INTEGER NOT NULL,
    latency_us INTEGER NOT NULL,
    PRIMARY KEY (key_id, minute, route, status)
);
CREATE INDEX usage_minutes_minute ON usage_minutes(minute);

INSERT INTO usage_minutes(key_id, project_id, route, status, minute, requests, charged, latency_us)
SELECT key_id, MIN(project_id), route, status, at / 60000, COUNT(*),
       SUM(CASE WHEN status IN (403, 429) THEN 0 ELSE 1 END), SUM(latency_us)
FROM usage_events GROUP BY key_id, at / 60000, route, status;

DROP TABLE usage_events;

-- Facts about the store itself, e.g. the mode ("demo" or "real") it was
-- first served in, so simulated data never mixes with real data.
CREATE TABLE store_meta (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
