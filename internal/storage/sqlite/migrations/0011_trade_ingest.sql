-- Trade ingest (docs/analytics.md, "Durability"). PostgreSQL's 0011 makes
-- the signature index compare bytes; SQLite's text columns already use
-- the BINARY collation, so there is nothing to change here. The step
-- exists so both engines share the migration numbering.
SELECT 1;
