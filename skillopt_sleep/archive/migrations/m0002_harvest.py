"""Harvest tables: cleaned sessions and their turns, and per-file checkpoints.

Sessions are copied here as they are harvested, so they outlive the agents' own
retention (Claude Code deletes transcripts after 30 days by default).
"""

SQL = """
CREATE TABLE sessions (
    source          TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    project         TEXT NOT NULL,
    started_at      TEXT,
    ended_at        TEXT,
    format_version  TEXT NOT NULL DEFAULT '',
    headless        INTEGER NOT NULL DEFAULT 0,
    path            TEXT NOT NULL DEFAULT '',
    files_json      TEXT NOT NULL DEFAULT '[]',
    skills_json     TEXT NOT NULL DEFAULT '[]',
    harvested_at    TEXT NOT NULL,
    PRIMARY KEY (source, session_id)
);
CREATE INDEX sessions_by_project ON sessions(project, ended_at);
CREATE INDEX sessions_by_end ON sessions(ended_at);

CREATE TABLE turns (
    turn_id         TEXT PRIMARY KEY,
    source          TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    idx             INTEGER NOT NULL,
    request         TEXT NOT NULL,
    final_answer    TEXT NOT NULL DEFAULT '',
    tool_calls_json TEXT NOT NULL DEFAULT '[]',
    signals_json    TEXT NOT NULL DEFAULT '[]',
    reaction        TEXT NOT NULL DEFAULT 'none',
    timestamp       TEXT,
    FOREIGN KEY (source, session_id) REFERENCES sessions(source, session_id) ON DELETE CASCADE
);
CREATE INDEX turns_by_session ON turns(source, session_id, idx);

CREATE TABLE harvest_checkpoints (
    path            TEXT PRIMARY KEY,
    source          TEXT NOT NULL,
    device          INTEGER NOT NULL,
    inode           INTEGER NOT NULL,
    size            INTEGER NOT NULL,
    mtime_ns        INTEGER NOT NULL,
    line_offset     INTEGER NOT NULL,
    tail_hash       TEXT NOT NULL,
    sessions_json   TEXT NOT NULL DEFAULT '[]',
    harvested_at    TEXT NOT NULL
);
"""
