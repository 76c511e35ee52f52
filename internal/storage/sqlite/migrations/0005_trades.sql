-- Durable trade ingest (docs/analytics.md, "Durability"). trades holds every
-- acknowledged trade for the retention; seq is the commit order (AUTOINCREMENT:
-- never reused, and SQLite's single writer commits in seq order).
CREATE TABLE trades (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    signature     TEXT NOT NULL UNIQUE,
    slot          INTEGER NOT NULL,
    block_time    INTEGER NOT NULL,
    mint          TEXT NOT NULL,
    side          TEXT NOT NULL,
    token_amount  REAL NOT NULL,
    usd_amount    REAL NOT NULL,
    price_usd     REAL NOT NULL,
    wallet        TEXT NOT NULL,
    venue         TEXT NOT NULL,
    flow_source   TEXT NOT NULL,
    fee_usd       REAL NOT NULL,
    is_bot        INTEGER NOT NULL
);
-- The highest seq committed in each minute of ingestion (unix minutes), to
-- find the trades ingested since a time without an index on the trades.
CREATE TABLE trade_minutes (
    minute  INTEGER PRIMARY KEY,
    seq_hi  INTEGER NOT NULL
);
-- Named marks: 'candles' is the seq through which the stored candles
-- reflect every stored trade.
CREATE TABLE analytics_marks (
    name   TEXT PRIMARY KEY,
    value  INTEGER NOT NULL
);
