"""What each project's last completed night was made of, so a night with nothing new can
say so and stop (``pipeline.skip``).

``fingerprint`` is JSON: the project's archived sessions (count and newest harvest time),
the skill files' hashes and the settings that shape a night. ``skipped_at`` and
``skip_reason`` describe the newest run that stopped because nothing had changed (NULL
once a night runs again). The index answers "how many sessions, harvested when" for a
project from the index alone.
"""

SQL = """
CREATE TABLE night_inputs (
    project      TEXT PRIMARY KEY,
    fingerprint  TEXT NOT NULL,
    night_id     TEXT NOT NULL,
    recorded_at  TEXT NOT NULL,
    skipped_at   TEXT,
    skip_reason  TEXT
);
CREATE INDEX sessions_by_harvest ON sessions(project, headless, harvested_at);
"""
