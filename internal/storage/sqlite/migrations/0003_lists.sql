-- Community token lists (v2) and mint advisories.

CREATE TABLE token_lists (
    id               TEXT PRIMARY KEY,
    slug             TEXT NOT NULL UNIQUE,
    owner_project_id TEXT NOT NULL,
    name             TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('draft', 'unlisted', 'published', 'archived')),
    member_count     INTEGER NOT NULL DEFAULT 0 CHECK (member_count >= 0),
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX token_lists_owner ON token_lists(owner_project_id, created_at);
CREATE INDEX token_lists_status ON token_lists(status, created_at);

-- One namespace for every slug in use: a list's live slug (held_until
-- NULL) and the slugs its renames hold for the owner until held_until. The
-- primary key makes slug uniqueness atomic; deleting the list frees both.
CREATE TABLE token_list_slugs (
    slug             TEXT PRIMARY KEY,
    list_id          TEXT NOT NULL REFERENCES token_lists(id) ON DELETE CASCADE,
    owner_project_id TEXT NOT NULL,
    held_until       INTEGER
);
CREATE INDEX token_list_slugs_list ON token_list_slugs(list_id);

CREATE TABLE token_list_members (
    list_id   TEXT NOT NULL REFERENCES token_lists(id) ON DELETE CASCADE,
    mint      TEXT NOT NULL CHECK (length(mint) > 0),
    rank      INTEGER NOT NULL,
    note      TEXT NOT NULL DEFAULT '',
    added_at  INTEGER NOT NULL,
    symbol    TEXT,
    name      TEXT,
    decimals  INTEGER,
    logo_uri  TEXT,
    verified  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (list_id, mint)
) WITHOUT ROWID;
-- Ranks are unique per list; rank shifts go through negative values.
CREATE UNIQUE INDEX token_list_members_rank ON token_list_members(list_id, rank);
CREATE INDEX token_list_members_mint ON token_list_members(mint);

CREATE TABLE asset_advisories (
    mint       TEXT PRIMARY KEY,
    status     TEXT NOT NULL CHECK (status IN ('caution', 'compromised', 'blocked')),
    reason     TEXT NOT NULL,
    url        TEXT,
    since      INTEGER NOT NULL,
    set_by     TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL
);
