-- Registry document bodies compressed (docs/registry.md, "Storage"):
-- encoding is '' for a body stored as imported, 'zstd' for a zstd frame.
-- A large body read whole makes SQLite assemble it in memory its
-- allocator keeps for reuse, outside the Go heap: 35 MB for 150,000
-- assets, resident for the life of the server.
ALTER TABLE registry_documents ADD COLUMN encoding TEXT NOT NULL DEFAULT '';
