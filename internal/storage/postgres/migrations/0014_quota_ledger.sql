-- Monthly quota consumption reserved ahead of use (internal/ratelimit
-- Quotas, docs/ratelimits.md "Quotas and crashes"): per key and UTC month
-- (month: the unix minute of 00:00 UTC on its first day), the units every
-- process reserved, written before any of them is granted.
CREATE TABLE quota_ledger (
    key_id TEXT NOT NULL,
    month  BIGINT NOT NULL,
    used   BIGINT NOT NULL,
    PRIMARY KEY (key_id, month)
);
