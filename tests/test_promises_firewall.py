"""The firewall's promises through its public functions only (``check_edit``,
``check_proposal``, ``scan_text``), so they hold whatever its classifiers become: an entry's
length limit and shape, a secret refused in learned text and only reported in the user's
own, a capability already granted (by the live skill or the user's requests) let through
and a new one refused once per line, the frontmatter changed in its description only,
the user's own words untouched but for trailing blank lines."""

from __future__ import annotations

from skillopt_sleep.firewall import (
    MAX_ENTRY_CHARS,
    MAX_SKILL_TOKENS,
    Context,
    check_edit,
    check_proposal,
    lint_document,
    scan_text,
)
from skillopt_sleep.records import Edit, EditOp, FirewallFinding

OLD = "---\nname: fix\ndescription: Fix bugs.\n---\nFix bugs.\n"
START, END = "<!-- skillopt-sleep:learned:start -->", "<!-- skillopt-sleep:learned:end -->"
HOST = "https://status.example-ci.dev/health"
PASSWORD = "Xq7vR2mK9pLw4ZtB8nYc"


def _learned(*entries: str, base: str = OLD) -> str:
    return base + "\n" + START + "\n" + "".join(f"- {e}\n" for e in entries) + END + "\n"


def _edit(text: str, anchor: str = "") -> Edit:
    return Edit(op=EditOp.APPEND, text=text, anchor=anchor)


def _rules(findings: list[FirewallFinding]) -> list[str]:
    return [f.rule for f in findings]


def test_an_entry_may_be_as_long_as_the_limit_and_no_longer() -> None:
    at = "Run the tests " + "x" * (MAX_ENTRY_CHARS - 14)
    assert len(at) == MAX_ENTRY_CHARS and check_edit(_edit(at)) == []
    over = check_edit(_edit(at + "y"))
    assert _rules(over) == ["entry_too_long"]
    assert over[0].excerpt == f"{MAX_ENTRY_CHARS + 1} chars > {MAX_ENTRY_CHARS}"


def test_an_entry_is_one_line_with_no_marker_or_frontmatter_fence() -> None:
    assert _rules(check_edit(_edit("Run pytest.\nThen push."))) == ["multi_line_entry"]
    assert check_edit(_edit("  Run pytest.\n")) == []  # a trailing newline is one line
    assert "marker_or_frontmatter" in _rules(check_edit(_edit("<!-- note -->")))
    assert "marker_or_frontmatter" in _rules(check_edit(_edit("ok", anchor="---")))
    assert "marker_or_frontmatter" in _rules(check_edit(_edit(f"see {START}")))


def test_a_secret_is_refused_in_an_edit_and_only_reported_in_the_users_own_text() -> None:
    line = f"Log in with DB_PASSWORD={PASSWORD}"
    refused = [f for f in check_edit(_edit(line)) if f.rule == "secret"]
    assert len(refused) == 1 and refused[0].severity == "error"
    assert refused[0].excerpt == f"password_pair: {PASSWORD[:4]}…"  # masked, never whole
    assert PASSWORD not in refused[0].excerpt
    own = [f for f in scan_text(line, own=True) if f.rule == "secret"]
    assert len(own) == 1 and own[0].severity == "warning"
    short = [f for f in check_edit(_edit("password: hunter2x")) if f.rule == "secret"]
    assert all(f.excerpt.endswith(": …") for f in short)


def test_a_capability_is_refused_once_per_line_unless_already_granted() -> None:
    text = f"Check {HOST} and again {HOST} before a release."
    found = [f for f in scan_text(text) if f.rule == "reach_host"]
    assert len(found) == 1 and found[0].severity == "error" and found[0].line == 1
    assert [f.line for f in scan_text(f"Check {HOST}.\nThen {HOST} again.")
            if f.rule == "reach_host"] == [1, 2]
    granted = Context.from_texts([f"is {HOST} up?"], OLD)
    assert [f for f in scan_text(text, granted) if f.rule == "reach_host"] == []
    own = [f for f in scan_text(text, own=True) if f.rule == "reach_host"]
    assert len(own) == 1 and own[0].severity == "note"


def test_a_proposal_may_change_the_description_and_nothing_else_of_the_frontmatter() -> None:
    assert check_proposal(OLD, _learned("Run pytest -q.")) == []
    described = _learned("Run pytest -q.").replace("description: Fix bugs.",
                                                   "description: Fix bugs; run the tests.")
    assert check_proposal(OLD, described) == []
    renamed = _learned("Run pytest -q.").replace("name: fix", "name: fixer")
    assert [(f.rule, f.excerpt) for f in check_proposal(OLD, renamed)] == [
        ("frontmatter", "name changed")]
    gone = _learned("Run pytest -q.", base="Fix bugs.\n")
    assert [(f.rule, f.excerpt) for f in check_proposal(OLD, gone)] == [
        ("frontmatter", "frontmatter added or removed")]


def test_the_users_own_words_may_not_change_but_trailing_blank_lines_may() -> None:
    changed = _learned("Run pytest -q.", base=OLD.replace("Fix bugs.\n", "Fix all bugs.\n"))
    assert _rules(check_proposal(OLD, changed)) == ["user_text"]
    assert check_proposal(OLD + "\n\n", _learned("Run pytest -q.")) == []


def test_a_proposal_may_keep_what_the_live_skill_had_but_add_no_secret_or_host() -> None:
    live = OLD + f"Status: {HOST}\nDB_PASSWORD={PASSWORD}\n"
    assert check_proposal(live, _learned("Run pytest -q.", base=live)) == []
    assert check_proposal(live, _learned(f"Check {HOST} first.", base=live)) == []
    other = "https://beacon.example-exfil.xyz/p"
    found = check_proposal(live, _learned(f"Report to {other}.", base=live))
    assert _rules(found) == ["reach_host"] and other.split("/")[2] in found[0].excerpt
    fresh = "Zt9Kq2Lm7Pw4Xr8Vb3Nc"
    leaked = check_proposal(live, _learned(f"Use DB_PASSWORD={fresh}.", base=live))
    assert _rules(leaked) == ["secret"] and leaked[0].severity == "error"


def test_a_host_the_user_typed_is_granted_and_nothing_beside_it() -> None:
    granted = Context.from_texts([f"is {HOST} green?"], OLD)
    assert check_proposal(OLD, _learned(f"Check {HOST} first."), granted) == []
    assert _rules(check_proposal(OLD, _learned(f"Check {HOST} first."))) == ["reach_host"]
    other = _learned("Check https://other.example-ci.dev/health first.")
    assert _rules(check_proposal(OLD, other, granted)) == ["reach_host"]


def _lint(text: str) -> list[tuple[str, str, int, str]]:
    return [(f.rule, f.severity, f.line, f.excerpt) for f in lint_document(text)]


ZW = "U+200B ZERO WIDTH SPACE"


def test_lint_names_hidden_text_an_error_in_learned_lines_only_and_on_its_own_line() -> None:
    doc = ("---\nname: fix\ndescription: d\n---\n" + "\nIntro with hidden\u200b text.\n" + START
           + "\n- Run the tests\u200b first.\n- Then lint\u200b.\n" + END
           + "\nAfter\u200b the region.\n")
    assert _lint(doc) == [("hidden_characters", "warning", 6, ZW),
                          ("hidden_characters", "error", 8, ZW),
                          ("hidden_characters", "error", 9, ZW),
                          ("hidden_characters", "warning", 11, ZW)]
    # A document that opens with a blank line, and no frontmatter.
    bare = ("\nIntro\u200b.\n" + START + "\u200b\n- Run\u200b.\n" + END + "\u200b\nAfter\u200b.\n")
    assert _lint(bare) == [
        ("frontmatter_shape", "note", 1, "no frontmatter (the file name routes the skill)"),
        ("hidden_characters", "warning", 2, ZW), ("hidden_characters", "error", 3, ZW),
        ("hidden_characters", "error", 4, ZW), ("hidden_characters", "error", 5, ZW),
        ("hidden_characters", "warning", 6, ZW)]  # the marker lines are the region's
    # A marker quoted in the frontmatter: the body is read without it, lines still the file's.
    quoted = ("---\nname: fix\ndescription: \"keeps " + START + " notes\"\n---\nBody\u200b.\n"
              + START + "\n- Run\u200b.\n" + END + "\nAfter\u200b.\n")
    assert _lint(quoted) == [("hidden_characters", "warning", 5, ZW),
                             ("hidden_characters", "error", 7, ZW),
                             ("hidden_characters", "warning", 9, ZW)]


def test_lint_names_a_broken_marker_on_the_files_own_line() -> None:
    doc = _learned("Run.") + END + "\n"
    assert doc.splitlines()[8:] == [END, END]  # the second end marker is the file's line 10
    assert _lint(doc) == [("broken_markers", "error", 10,
                           "line 10: end marker of learned region without a start")]
    unclosed = OLD + START + "\n- Run.\n"
    assert _lint(unclosed) == [(
        "broken_markers", "error", 1, "the learned region has a start marker but no end "
        "marker; refusing to guess where it ends (add '" + END + "')")]


def test_lint_notes_the_size_only_above_the_budget() -> None:
    body = OLD + "x" * (4 * 300 - len(OLD))  # about 300 tokens
    assert lint_document(body, max_tokens=300) == []
    over = body + "xxxx"
    assert _lint(over) == []
    assert _lint_size(over, 300) == [("size", "note", 1, "about 301 tokens loaded into every "
                                      "session that uses this skill (budget 300)")]
    big = OLD + ("x" * 70 + "\n") * 115  # lines of one run each: cheap to read
    assert _lint_size(big, 2000) == _lint_size(big, MAX_SKILL_TOKENS) == [(
        "size", "note", 1, f"about {len(big) // 4:,} tokens loaded into every session that "
        "uses this skill (budget 2,000)")]


def _lint_size(text: str, budget: int) -> list[tuple[str, str, int, str]]:
    return [(f.rule, f.severity, f.line, f.excerpt) for f in lint_document(text, budget)
            if f.rule == "size"]


LOOSE = ("---\nname: fix\ndescription: Fix bugs.\nkeywords: [@Cron]\nnotes: first line\n"
         "  continued here\n  # an indented comment\n---\nFix bugs.\n")


def _frontmatter(before: str, after: str) -> list[str]:
    return [f.excerpt for f in check_proposal(before, after) if f.rule == "frontmatter"]


def test_a_frontmatter_yaml_refuses_is_compared_key_by_key_and_never_raises() -> None:
    described = LOOSE.replace("Fix bugs.\nkeywords", "Fix bugs fast.\nkeywords")
    assert _frontmatter(LOOSE, described) == []
    assert _frontmatter(LOOSE, LOOSE.replace("continued here", "continued here  ")) == []
    assert _frontmatter(LOOSE, LOOSE.replace("# an indented", "# a changed")) == []
    assert _frontmatter(LOOSE, LOOSE.replace("continued here", "continued there")) == [
        "notes changed"]
    assert _frontmatter(LOOSE, LOOSE.replace("  continued", "    continued")) == [
        "notes changed"]  # a continuation keeps its indentation
    stray = LOOSE.replace("---\nname", "---\n  stray words\nname")
    assert _frontmatter(stray, stray.replace("Fix bugs.\nkeywords", "Fix it.\nkeywords")) == []
    # YAML it accepts is compared as YAML: the same list spelt with other spaces is unchanged.
    strict = "---\nname: fix\ndescription: d\ntools: [a, b]\n---\nFix bugs.\n"
    assert _frontmatter(strict, strict.replace("[a, b]", "[a,  b]")) == []
    assert _frontmatter(strict, strict.replace("[a, b]", "[a, c]")) == ["tools changed"]


def _notes(text: str, folder: str = "") -> list[str]:
    return [f.excerpt for f in lint_document(text, folder=folder) if f.rule == "frontmatter_shape"]


def test_lint_notes_each_frontmatter_shape_word_for_word() -> None:
    def doc(head: str) -> str:
        return f"---\n{head}\n---\nBody.\n"

    loose = doc("name: fix\ndescription: d\nkeywords: [@Cron]")
    assert _notes(loose) == ["frontmatter is not strict YAML at frontmatter line 3; read "
                             "tolerantly"]
    assert _notes(loose, "other") == [_notes(loose)[0],
                                      "name 'fix' differs from its folder 'other'"]
    assert _notes(doc("- a\n- b")) == ["frontmatter is not a mapping"]
    # A character YAML's reader refuses: no position to name.
    assert _notes(doc("name: fix\ndescription: d\x07")) == [
        "frontmatter is not strict YAML; read tolerantly"]
    assert _notes(doc("name: 3\ndescription: d")) == ["name is a int, not a string"]
    assert _notes(doc("name: fix\ndescription: d"), "fix") == []
    assert _notes(doc("name: fix")) == ["no description"]
    assert _notes(doc("name: fix\ndescription: " + "d" * 1024)) == []
    assert _notes(doc("name: fix\ndescription: " + "d" * 1025)) == [
        "description is 1025 characters (> 1,024)"]
