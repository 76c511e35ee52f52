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
