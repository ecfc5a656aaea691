"""The archive: one SQLite file per state dir, its migrations, and every query.

Internal: the public API is ``skillopt_sleep.__all__``.
"""
