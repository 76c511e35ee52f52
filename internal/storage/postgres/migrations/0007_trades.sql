-- Durable trade ingest (docs/analytics.md, "Durability"). trades holds every
-- acknowledged trade for the retention; seq is the commit order (writers
-- serialise on an advisory lock, so seqs commit in ascending order).
CREATE TABLE trades (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    signature   TEXT NOT NULL UNIQUE,
    mint        TEXT NOT NULL,
    block_time  BIGINT NOT NULL,
    -- The other fields, encoded by internal/storage (EncodeTradeData):
    -- fewer columns make the batch insert and the start-up scan cheaper.
    data        BYTEA NOT NULL
);
-- The highest seq committed in each minute of ingestion (unix minutes), to
-- find the trades ingested since a time without an index on the trades.
CREATE TABLE trade_minutes (
    minute  BIGINT PRIMARY KEY,
    seq_hi  BIGINT NOT NULL
);
-- Named marks: 'candles' is the seq through which the stored candles
-- reflect every stored trade.
CREATE TABLE analytics_marks (
    name   TEXT PRIMARY KEY,
    value  BIGINT NOT NULL
);
