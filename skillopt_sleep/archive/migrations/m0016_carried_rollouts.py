"""Rollouts a skill's next night may reuse (issue "A real night"): the last night's final
skill's answers that no gate decision selected — its validation answers drawn after it was
accepted (or all of them when it was never replaced that night) and its train answers.

One night's worth per (project, skill): a night replaces the rows of the one before.
``task_key`` fingerprints the task's content (intent, context, judge), so a task whose id
stayed but whose judge changed is replayed instead of reused. ``first`` is the validation
sample the next night starts at, so it never pairs on a sample a gate already used.
"""

SQL = """
CREATE TABLE carried_rollouts (
    project     TEXT NOT NULL,
    skill       TEXT NOT NULL,
    night_id    TEXT NOT NULL,
    first       INTEGER NOT NULL,
    skill_hash  TEXT NOT NULL,
    task_id     TEXT NOT NULL,
    task_key    TEXT NOT NULL,
    sample      INTEGER NOT NULL,
    hard        REAL NOT NULL,
    soft        REAL NOT NULL,
    rationale   TEXT NOT NULL DEFAULT '',
    response    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (project, skill, skill_hash, task_id, sample)
);
"""
