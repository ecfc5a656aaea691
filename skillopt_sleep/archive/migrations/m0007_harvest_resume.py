"""Per-file resume state of the harvest: what a grown file's next read starts from.

Kept in the checkpoint row, so a checkpoint and its state are always written together;
NULL means the next read of that file starts from its beginning.
"""

SQL = """
ALTER TABLE harvest_checkpoints ADD COLUMN resume_json TEXT
"""
