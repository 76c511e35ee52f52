-- Project membership (dashboard sign-in) and the persisted token-list
-- export versions (GET /v2/lists/{slug}/tokenlist.json).

CREATE TABLE project_members (
    project_id TEXT NOT NULL REFERENCES projects(id),
    user_id    TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    added_at   BIGINT NOT NULL,
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user ON project_members(user_id);

-- One row per exported list: "list:<id>" for community lists,
-- "curated:<slug>" for curated ones. tokens is the JSON of the token
-- entries at this version, the base of the next diff.
CREATE TABLE token_list_exports (
    list_key   TEXT PRIMARY KEY,
    major      BIGINT NOT NULL,
    minor      BIGINT NOT NULL,
    patch      BIGINT NOT NULL,
    tokens     TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
