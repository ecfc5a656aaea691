"""Core tables: nights, the rejected-edit buffer, meta notes."""

SQL = """
CREATE TABLE nights (
    night_id    TEXT PRIMARY KEY,
    project     TEXT NOT NULL,
    skill       TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    status      TEXT NOT NULL,
    result_json TEXT
);
CREATE INDEX nights_by_project ON nights(project, started_at);

CREATE TABLE rejected_edits (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project     TEXT NOT NULL,
    skill       TEXT NOT NULL,
    edit_id     TEXT NOT NULL,
    night_id    TEXT NOT NULL,
    stage       TEXT NOT NULL,
    reason      TEXT NOT NULL,
    mean_delta  REAL,
    p_value     REAL,
    edit_json   TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX rejected_by_skill ON rejected_edits(project, skill, created_at);

CREATE TABLE meta_notes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project     TEXT NOT NULL,
    skill       TEXT NOT NULL,
    night_id    TEXT NOT NULL,
    note        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
"""
