"""Harvest: agent transcripts on disk to ``Session`` records, one module per format.

Internal: the public API is ``skillopt_sleep.__all__``.
"""
