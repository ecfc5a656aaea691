"""Write-back transactions the ledger knows, and what each write left in each root.

``write_intents``: one row per write, inserted before its journal exists (``pending``) and
marked ``committed`` in the same SQLite transaction as its ledger rows. Recovery replays a
journal only when its id and every path in it match a row here, so a journal the tool did
not write is never replayed; a row still ``pending`` is rolled back, ``committed`` forward.

``skill_writes.after_sha256`` / ``after_mode``: what the write put at each path ('' : no
file; NULL: a write recorded before this migration), so a rollback can tell a root changed
by hand since from one still holding what the write left.
"""

SQL = """
CREATE TABLE write_intents (
    txid        TEXT PRIMARY KEY,
    skill       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    paths       TEXT NOT NULL,
    state       TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
ALTER TABLE skill_writes ADD COLUMN after_sha256 TEXT;
ALTER TABLE skill_writes ADD COLUMN after_mode INTEGER;
"""
