-- A trade's identity is (signature, leg) (docs/analytics.md, "Trade
-- identity"): one transaction can hold several swap legs, each a trade.
-- Existing trades are leg 0 (a constant default: no table rewrite); the
-- unique key moves from signature to (signature, leg), signature keeping
-- its byte collation (0011).
ALTER TABLE trades ADD COLUMN leg SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE trades DROP CONSTRAINT trades_signature_key;
ALTER TABLE trades ADD CONSTRAINT trades_signature_leg_key UNIQUE (signature, leg);
