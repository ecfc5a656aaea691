"""How many of a project's first ``sample`` requests have each fingerprint feature
(``mine.fingerprint.Rarity``): counted once per doubling of the project, read by every
mining pass after (a small row, instead of re-reading thousands of requests)."""

SQL = """
CREATE TABLE mining_rarity (
    project     TEXT NOT NULL,
    sample      INTEGER NOT NULL,
    counts      TEXT NOT NULL,
    PRIMARY KEY (project, sample)
);
"""
