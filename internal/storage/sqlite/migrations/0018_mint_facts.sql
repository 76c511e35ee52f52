-- On-chain facts of mints (internal/onchain, docs/onchain.md): the current
-- read per mint, and the append-only log of every change of a fact.
CREATE TABLE mint_facts (
    mint    TEXT PRIMARY KEY,
    status  TEXT NOT NULL,
    slot    INTEGER NOT NULL,
    read_at INTEGER NOT NULL,
    facts   BLOB NOT NULL
);
CREATE TABLE mint_changes (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    mint   TEXT NOT NULL,
    field  TEXT NOT NULL,
    old    TEXT NOT NULL,
    new    TEXT NOT NULL,
    slot   INTEGER NOT NULL,
    at     INTEGER NOT NULL,
    source TEXT NOT NULL
);
CREATE INDEX mint_changes_mint ON mint_changes(mint, seq);
