"""Learned entries and their use (issue "Skills that get loaded"): one row per entry a
night accepted into a skill's learned region.

``accepted_seq``/``last_used_seq`` are night ordinals of the skill (its 0-based count of
earlier nights), so "unused for N nights" is a subtraction; the night ids beside them are
for people. ``evidence_json`` is the gate's evidence for the entry (mean delta, p-value,
pairs, the tasks the optimizer cited). ``retired_night`` is set when a retirement night
deleted the entry through the gate.
"""

SQL = """
CREATE TABLE learned_entries (
    project         TEXT NOT NULL,
    skill           TEXT NOT NULL,
    entry_key       TEXT NOT NULL,
    text            TEXT NOT NULL,
    night_id        TEXT NOT NULL,
    accepted_seq    INTEGER NOT NULL,
    evidence_json   TEXT NOT NULL DEFAULT '{}',
    last_used_night TEXT NOT NULL DEFAULT '',
    last_used_seq   INTEGER,
    uses            INTEGER NOT NULL DEFAULT 0,
    retired_night   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (project, skill, entry_key)
);
"""
