"""The edit firewall: what an edit may never bring into a skill, shared by the night, adoption
and ``lint``.

Seams: ``normalise`` (what an agent reads), ``shell`` (commands parsed with bashlex),
``hosts``, ``shell_rules``/``shell_access``/``prose`` (capabilities by class; in prose
``roles*``, ``overrides``, ``conceal`` (concealment from the user), ``checks_project``
(checks removed in a project's terms), ``multilingual`` (overrides in other languages)),
``capabilities`` (the document walk), ``provenance`` (what is already granted),
``rules`` (verdicts on edits and proposals), ``lint`` (severities for a whole document).
"""

from skillopt_sleep.firewall.capabilities import CLASSES, Capability, capabilities
from skillopt_sleep.firewall.lint import MAX_SKILL_TOKENS, SEVERITIES, lint_document
from skillopt_sleep.firewall.normalise import normalise
from skillopt_sleep.firewall.provenance import Context, found_in, granted_by_user, user_typed
from skillopt_sleep.firewall.rules import MAX_ENTRY_CHARS, check_edit, check_proposal, scan_text

NOTES = frozenset({"size", "frontmatter_shape"})
"""Rules always reported at note level."""

__all__ = [
    "CLASSES",
    "MAX_ENTRY_CHARS",
    "MAX_SKILL_TOKENS",
    "NOTES",
    "SEVERITIES",
    "Capability",
    "Context",
    "capabilities",
    "check_edit",
    "check_proposal",
    "found_in",
    "granted_by_user",
    "lint_document",
    "normalise",
    "scan_text",
    "user_typed",
]
