"""The per-call log of model use: who called which model, for what tokens, time and dollars."""

SQL = """
CREATE TABLE model_calls (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    night_id          TEXT NOT NULL,
    role              TEXT NOT NULL,
    spec              TEXT NOT NULL,
    skill             TEXT NOT NULL DEFAULT '',
    input_tokens      INTEGER NOT NULL DEFAULT 0,
    output_tokens     INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    latency_s         REAL NOT NULL DEFAULT 0,
    cost_usd          REAL NOT NULL DEFAULT 0,
    cached            INTEGER NOT NULL DEFAULT 0,
    error             TEXT NOT NULL DEFAULT '',
    at                REAL NOT NULL
);
CREATE INDEX model_calls_by_night ON model_calls(night_id, role);
"""
