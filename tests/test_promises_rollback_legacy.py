"""Rollback of a write the ledger recorded before it kept each file (an older release's
archive: versions with their targets, no per-file rows): the last version's own files go
back to the version before it, a single recorded version is refused by name, and a
refusal of every file names each one."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.archive.db import Archive
from skillopt_sleep.archive.versions import versions
from skillopt_sleep.errors import StoreError
from skillopt_sleep.publish import adopt as adoption
from skillopt_sleep.publish.rollback import rollback_skill
from skillopt_sleep.publish.roots import real

from .test_promises_adopt import NEW, OLD, REGION, _file, _night
from .test_promises_rollback import world_at

SECOND = OLD + "\n" + REGION.replace("pytest -q", "pytest -x")  # a second night's region


@pytest.fixture
def world(tmp_path: Path) -> tuple[Archive, list[Path]]:
    return world_at(tmp_path)


def _legacy(archive: Archive) -> None:
    """The ledger as a release before the per-file rows wrote it: versions, no file rows."""
    archive.conn.execute("DELETE FROM skill_writes")
    archive.conn.commit()


def test_a_write_recorded_before_the_per_file_ledger_goes_back_to_the_version_before(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots[:1]), "fix", roots[:1])
    _legacy(archive)
    before = versions(archive, "fix")[-2]
    done = rollback_skill(archive, "fix")
    assert done.restored == {str(real(_file(roots[0]))): f"v{before.version}"}
    assert _file(roots[0]).read_text() == OLD
    assert versions(archive, "fix")[-1].reason == f"rollback to v{before.version}"


def test_a_legacy_first_write_goes_back_to_no_file_in_the_roots_given(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    """Given roots, a legacy rollback acts on their files, not on the recorded targets."""
    archive, _ = world
    fresh, copy = tmp_path / "fresh" / "skills", tmp_path / "copy" / "skills"
    adoption.adopt_skill(archive, _night(tmp_path, [fresh]), "fix", [fresh])
    _legacy(archive)
    _file(copy).parent.mkdir(parents=True)
    _file(copy).write_text(NEW)
    assert adoption.rollback(archive, "fix", roots=[copy]) == versions(archive, "fix")[-1].version
    assert not _file(copy).exists() and _file(fresh).read_text() == NEW
    history = versions(archive, "fix")
    assert history[0].reason == adoption.ABSENT
    assert history[-1].reason == f"rollback to v{history[0].version}"


def test_a_legacy_rollback_goes_back_one_version_not_to_the_first(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots[:1]), "fix", roots[:1])
    second = _night(tmp_path, roots[:1], after=SECOND, night="20261128-040000-abcdef12")
    adoption.adopt_skill(archive, second, "fix", roots[:1])
    _legacy(archive)
    first_adopted = versions(archive, "fix")[-2]
    done = rollback_skill(archive, "fix")
    assert done.restored == {str(real(_file(roots[0]))): f"v{first_adopted.version}"}
    assert _file(roots[0]).read_text() == NEW  # the first night's text, not the original


def test_a_legacy_rollback_acts_on_the_files_its_last_version_names(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    """The second root held the first night's text already; the second night wrote only
    it. Undone, it goes back to that text and the first root is not touched."""
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots[:1]), "fix", roots[:1])
    _file(roots[1]).write_text(NEW)
    second = _night(tmp_path, roots[1:], after=SECOND, night="20261128-040000-abcdef12")
    adoption.adopt_skill(archive, second, "fix", roots[1:])
    history = versions(archive, "fix")
    assert history[-1].targets == [str(real(_file(roots[1])))] != history[-2].targets
    _legacy(archive)
    done = rollback_skill(archive, "fix")
    assert done.restored == {str(real(_file(roots[1]))): f"v{history[-2].version}"}
    assert _file(roots[1]).read_text() == NEW and _file(roots[0]).read_text() == NEW


def test_a_legacy_ledger_with_one_version_has_nothing_earlier_to_restore(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots[:1]), "fix", roots[:1])
    _legacy(archive)
    first = versions(archive, "fix")[0].version
    archive.conn.execute("DELETE FROM skill_versions WHERE version = ?", (first,))
    archive.conn.commit()
    with pytest.raises(StoreError) as refused:
        rollback_skill(archive, "fix")
    assert str(refused.value) == ("skill 'fix' has only one version; nothing earlier to "
                                  "restore")
    assert _file(roots[0]).read_text() == NEW


def test_nothing_rolled_back_names_each_file_left_alone_and_how_to_force(
        tmp_path: Path, world: tuple[Archive, list[Path]]) -> None:
    archive, roots = world
    adoption.adopt_skill(archive, _night(tmp_path, roots), "fix", roots)
    written = versions(archive, "fix")[-1].version
    count = len(versions(archive, "fix"))
    for root in roots:
        _file(root).write_text("edited by hand")
    with pytest.raises(StoreError) as refused:
        rollback_skill(archive, "fix")
    paths = sorted(str(real(_file(r))) for r in roots)  # the ledger's order: by path
    why = "; ".join(f"{p} was changed by hand since v{written}" for p in paths)
    assert str(refused.value) == (f"nothing of 'fix' was rolled back: {why}. `--force` takes "
                                  "them back anyway")
    assert len(versions(archive, "fix")) == count
    assert all(_file(r).read_text() == "edited by hand" for r in roots)
