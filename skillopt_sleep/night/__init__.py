"""One night for one skill: replay, reflect, merge, clip, gate, slow update.

Internal: the public API is ``skillopt_sleep.__all__``.
"""
