"""Per-file priors of every skill write, so a rollback restores each root to its own bytes.

One row per target path of a write: what was there before (``before_sha256`` NULL: no
file; the text itself is a ``skill_versions`` row with that hash) and its file mode.
"""

SQL = """
CREATE TABLE skill_writes (
    skill          TEXT NOT NULL,
    version        INTEGER NOT NULL,
    path           TEXT NOT NULL,
    before_sha256  TEXT,
    before_mode    INTEGER,
    PRIMARY KEY (skill, version, path)
);
"""
