"""Publishing a night: staging, the report, adoption into the agents' skill dirs, rollback.

Internal: the public API is ``skillopt_sleep.__all__``.
"""
