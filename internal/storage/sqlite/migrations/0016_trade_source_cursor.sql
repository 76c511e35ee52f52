-- The chain trade source's cursor (internal/chainsource, docs/tradesource.md):
-- written in the same transaction as the trades of the blocks it covers.
-- through: every slot <= it is stored or known skipped; frontier: the highest
-- slot processed; gaps: JSON array of unfetched produced-slot ranges;
-- version: compare-and-set counter (a replica that lost the lease cannot
-- overwrite its successor's cursor).
CREATE TABLE trade_source_cursor (
    source   TEXT PRIMARY KEY,
    through  INTEGER NOT NULL,
    frontier INTEGER NOT NULL,
    gaps     TEXT NOT NULL,
    version  INTEGER NOT NULL,
    updated  INTEGER NOT NULL
);
