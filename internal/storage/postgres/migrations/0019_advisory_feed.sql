-- The advisory feed (docs/advisories.md "Feed"): every set, change and lift
-- of an asset_advisories row appends one event in the same transaction.
-- Cursors come from the single advisory_feed_head row, which every advisory
-- write locks (SELECT ... FOR UPDATE) before anything else and holds until
-- commit: advisory writers are serialized, so events commit in cursor order
-- and a reader following cursor > since never skips a row that commits
-- later with a lower cursor (a sequence would allow exactly that).
CREATE TABLE advisory_feed_head (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    cursor BIGINT NOT NULL
);
INSERT INTO advisory_feed_head(id, cursor) VALUES (1, 0);

CREATE TABLE advisory_events (
    cursor BIGINT PRIMARY KEY,
    mint   TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('set', 'changed', 'lifted')),
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    url    TEXT,
    set_by TEXT NOT NULL DEFAULT '',
    at     BIGINT NOT NULL
);

-- Advisory reports (docs/advisories.md "Reports"): filed by any key,
-- reviewed by an operator. Accepting one sets the advisory (set_by
-- 'report:<id>') in the transaction that resolves the report.
CREATE TABLE advisory_reports (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL,
    key_id          TEXT NOT NULL,
    mint            TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('impersonation', 'compromised', 'scam', 'other')),
    claimed_asset   TEXT NOT NULL DEFAULT '',
    evidence_url    TEXT NOT NULL DEFAULT '',
    note            TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
    resolution      TEXT NOT NULL DEFAULT '',
    resolution_note TEXT NOT NULL DEFAULT '',
    resolved_by     TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    resolved_at     BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX advisory_reports_status ON advisory_reports(status, created_at);
