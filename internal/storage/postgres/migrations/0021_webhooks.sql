-- Webhooks (internal/webhooks, docs/webhooks.md): endpoints owned by a
-- project, the outbox of deliveries (one row per endpoint and event; id is
-- the webhook-id every attempt carries), the 7-day delivery log, the
-- dispatcher's cursor into the event log and the leases that let one
-- replica fan out and one deliver a given endpoint at a time.
-- Times are unix milliseconds.
CREATE TABLE webhooks (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL, -- JSON array of event types
    filters     TEXT NOT NULL, -- JSON object
    secret      TEXT NOT NULL,
    enabled     BOOLEAN NOT NULL,
    cross_state TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX webhooks_project ON webhooks(project_id, created_at);

CREATE TABLE webhook_deliveries (
    id           TEXT PRIMARY KEY,
    webhook_id   TEXT NOT NULL,
    event_id     BIGINT NOT NULL,
    event_type   TEXT NOT NULL,
    payload      BYTEA NOT NULL,
    status       TEXT NOT NULL, -- pending, delivered, failed
    attempts     BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    window_start BIGINT NOT NULL,
    next_at      BIGINT NOT NULL,
    last_at      BIGINT NOT NULL -- 0: never attempted
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_at, webhook_id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(webhook_id, status, next_at);

CREATE TABLE webhook_attempts (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id   TEXT NOT NULL,
    webhook_id    TEXT NOT NULL,
    event_id      BIGINT NOT NULL,
    event_type    TEXT NOT NULL,
    attempt       BIGINT NOT NULL,
    at            BIGINT NOT NULL,
    outcome       TEXT NOT NULL, -- delivered, failed, refused
    latency_ms    BIGINT NOT NULL,
    response_code BIGINT NOT NULL, -- 0: no response
    error         TEXT NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts(webhook_id, at);
CREATE INDEX webhook_attempts_at ON webhook_attempts(at);

CREATE TABLE webhook_cursor (
    name     TEXT PRIMARY KEY,
    event_id BIGINT NOT NULL
);

CREATE TABLE webhook_leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
