"""The background service, a face: the nightly schedule, the session watcher, install.

Internal: the public API is ``skillopt_sleep.__all__``.
"""
