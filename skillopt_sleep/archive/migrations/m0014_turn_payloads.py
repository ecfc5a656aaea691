"""Turns keep their answer and tool calls compressed: ``payload_z`` is zlib-compressed JSON
``{"answer": …, "tool_calls": […]}`` (``archive.sessions``).

What a harvest keeps of tool output is already clipped (arguments to 400 characters, a
failed call's output to its first 300, answers to 4,000); compressed, a turn's answer and
tool calls take less than half the space (experiments/archive_size.py).
Rows written before this migration keep their text columns (``payload_z`` NULL) and are
read as before; new rows leave ``final_answer`` empty and ``tool_calls_json`` ``[]``.
"""

SQL = """
ALTER TABLE turns ADD COLUMN payload_z BLOB
"""
