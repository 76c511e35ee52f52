CREATE TABLE registry_documents (
    seq         BIGSERIAL PRIMARY KEY,
    source      TEXT NOT NULL UNIQUE,
    format      TEXT NOT NULL,
    body        BYTEA NOT NULL,
    hash        TEXT NOT NULL,
    imported_at BIGINT NOT NULL
);
