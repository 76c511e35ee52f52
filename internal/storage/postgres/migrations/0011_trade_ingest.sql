-- Trade ingest (docs/analytics.md, "Durability"): signatures are opaque
-- identifiers, so the unique index compares bytes (COLLATE "C") instead of
-- going through the database locale's collation for every probe and
-- insert of a batch. Only the index is rebuilt; the rows are unchanged.
ALTER TABLE trades ALTER COLUMN signature TYPE TEXT COLLATE "C";
