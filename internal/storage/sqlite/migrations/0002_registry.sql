CREATE TABLE registry_documents (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    source      TEXT NOT NULL UNIQUE,
    format      TEXT NOT NULL,
    body        BLOB NOT NULL,
    hash        TEXT NOT NULL,
    imported_at INTEGER NOT NULL
);
