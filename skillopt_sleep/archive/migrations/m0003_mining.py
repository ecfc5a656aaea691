"""Mining tables: the vector cache, the requests seen, task families and their tasks.

``vectors`` is keyed by embedder and content hash, so a text is embedded once per
embedder, ever. ``mined_requests`` keeps every request the miner has seen (``seq`` is
arrival order, which fixes a family's first members); ``family_id`` stays NULL while a
request waits for a second session to ask the same. ``families`` never change id or
split once written.
"""

SQL = """
CREATE TABLE vectors (
    embedder    TEXT NOT NULL,
    text_hash   TEXT NOT NULL,
    dim         INTEGER NOT NULL,
    vector      BLOB NOT NULL,
    PRIMARY KEY (embedder, text_hash)
);

CREATE TABLE mined_requests (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    project     TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    source      TEXT NOT NULL,
    text        TEXT NOT NULL,
    text_hash   TEXT NOT NULL,
    request_json TEXT NOT NULL,
    family_id   TEXT
);
CREATE INDEX mined_requests_by_project ON mined_requests(project, family_id);
CREATE INDEX mined_requests_by_family ON mined_requests(family_id);

CREATE TABLE families (
    family_id   TEXT PRIMARY KEY,
    project     TEXT NOT NULL,
    embedder    TEXT NOT NULL,
    split       TEXT NOT NULL,
    first_members TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX families_by_project ON families(project);

CREATE TABLE tasks (
    task_id     TEXT PRIMARY KEY,
    family_id   TEXT NOT NULL,
    project     TEXT NOT NULL,
    split       TEXT NOT NULL,
    synthetic   INTEGER NOT NULL,
    skill       TEXT NOT NULL,
    task_json   TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX tasks_by_project ON tasks(project, split);
CREATE INDEX tasks_by_family ON tasks(family_id);
"""
