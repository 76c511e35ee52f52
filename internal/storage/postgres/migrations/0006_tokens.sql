-- The token index: unverified token metadata imported from token-list
-- files (assetd tokens import). One row per mint; the latest import wins.
CREATE TABLE token_index (
    mint         TEXT PRIMARY KEY,
    symbol       TEXT NOT NULL,
    name         TEXT NOT NULL,
    decimals     INTEGER,
    logo_uri     TEXT NOT NULL,
    coingecko_id TEXT NOT NULL,
    source       TEXT NOT NULL,
    imported_at  BIGINT NOT NULL
);
CREATE INDEX token_index_source ON token_index(source);
