"""The versions ledger: every skill text ever written back, byte-exact, for rollback."""

SQL = """
CREATE TABLE skill_versions (
    skill       TEXT NOT NULL,
    version     INTEGER NOT NULL,
    sha256      TEXT NOT NULL,
    content     TEXT NOT NULL,
    night_id    TEXT,
    reason      TEXT NOT NULL,
    targets     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (skill, version)
);
"""
