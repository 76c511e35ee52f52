-- A trade's identity is (signature, leg) (docs/analytics.md, "Trade
-- identity"): one transaction can hold several swap legs, each a trade.
-- SQLite cannot drop the column's UNIQUE constraint, so the table is
-- rebuilt with the same seqs (existing trades are leg 0) and its
-- AUTOINCREMENT counter kept where it was: seqs are never reused, not even
-- those of pruned trades.
CREATE TABLE trades_0015 (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    signature   TEXT NOT NULL,
    leg         INTEGER NOT NULL DEFAULT 0,
    mint        TEXT NOT NULL,
    block_time  INTEGER NOT NULL,
    data        BLOB NOT NULL,
    UNIQUE (signature, leg)
);
INSERT INTO trades_0015(seq, signature, leg, mint, block_time, data)
    SELECT seq, signature, 0, mint, block_time, data FROM trades ORDER BY seq;
DELETE FROM sqlite_sequence WHERE name = 'trades_0015';
INSERT INTO sqlite_sequence(name, seq)
    SELECT 'trades_0015', COALESCE((SELECT MAX(seq) FROM sqlite_sequence WHERE name = 'trades'), 0);
DROP TABLE trades;
ALTER TABLE trades_0015 RENAME TO trades;
