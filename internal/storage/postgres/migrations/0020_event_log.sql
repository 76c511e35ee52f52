-- The event log (docs/events.md): price, advisory, list, trending and depeg
-- events with a global cursor, read by the SSE stream and webhooks. IDs come
-- from the single event_log_head row, which every append updates first and
-- holds until commit (SELECT ... FOR UPDATE): appends are
-- serialized, so events commit in cursor order and a reader following
-- id > cursor never skips a row that commits later with a lower id.
-- dedupe_key drops an event whose key was appended within the dedupe
-- window (two replicas producing the same change). Pruned in the
-- background to the retention window (time and count).
CREATE TABLE event_log_head (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    last_id BIGINT NOT NULL
);
INSERT INTO event_log_head(id, last_id) VALUES (1, 0);

CREATE TABLE events (
    id         BIGINT PRIMARY KEY,
    type       TEXT NOT NULL,
    topic      TEXT NOT NULL,
    at_ms      BIGINT NOT NULL,
    dedupe_key TEXT NOT NULL DEFAULT '',
    data       TEXT NOT NULL
);
CREATE INDEX events_at ON events(at_ms);
CREATE INDEX events_dedupe ON events(dedupe_key, at_ms) WHERE dedupe_key <> '';
