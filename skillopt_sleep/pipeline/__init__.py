"""The nightly run composed from the stages (``run_once``) and the status faces show.

Internal: the public API is ``skillopt_sleep.__all__``.
"""
