"""The night's report: a self-contained HTML page, its JSON twin, and a terminal summary."""

from __future__ import annotations

from skillopt_sleep.publish.report.html import render, render_json
from skillopt_sleep.publish.report.text import summary

__all__ = ["render", "render_json", "summary"]
