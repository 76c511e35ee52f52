-- On-chain facts of mints (internal/onchain, docs/onchain.md): the current
-- read per mint, and the append-only log of every change of a fact.
CREATE TABLE mint_facts (
    mint    TEXT PRIMARY KEY,
    status  TEXT NOT NULL,
    slot    BIGINT NOT NULL,
    read_at BIGINT NOT NULL,
    facts   BYTEA NOT NULL
);
CREATE TABLE mint_changes (
    seq    BIGSERIAL PRIMARY KEY,
    mint   TEXT NOT NULL,
    field  TEXT NOT NULL,
    old    TEXT NOT NULL,
    new    TEXT NOT NULL,
    slot   BIGINT NOT NULL,
    at     BIGINT NOT NULL,
    source TEXT NOT NULL
);
CREATE INDEX mint_changes_mint ON mint_changes(mint, seq);
