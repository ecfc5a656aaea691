"""The simulated proof: personas, the simulated target and optimizer, persona transcripts.

Internal: the public API is ``skillopt_sleep.__all__``.
"""
