-- Registry document encoding: SQLite's 0012 compresses large bodies
-- because its allocator keeps the memory a large value was read into;
-- PostgreSQL's driver reads into the Go heap, so bodies stay as imported
-- here. The step exists so both engines share the migration numbering.
SELECT 1;
