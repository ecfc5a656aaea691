"""The reaction signal's edges, where a mutation of ``harvest.signals`` went unseen: a repeat
is judged by trigram overlap from eight characters up (the threshold itself included) and by
equality below, and only the opening of the next message is read."""

from __future__ import annotations

from fractions import Fraction

from skillopt_sleep.harvest.signals import _normalise, _trigrams, classify_reaction, is_repeat
from skillopt_sleep.records import Turn


def _overlap(a: str, b: str) -> Fraction:
    ta, tb = _trigrams(_normalise(a)), _trigrams(_normalise(b))
    return Fraction(len(ta & tb), len(ta | tb))


def test_short_requests_repeat_only_when_equal() -> None:
    assert is_repeat("lint it", "Lint  it")  # the same words, case and spacing aside
    assert not is_repeat("", "")  # nothing asked twice is no repeat
    # Seven characters against eight: close in trigrams (0.7), but too short to judge so.
    assert _overlap("fix bugs", "fix bug") >= Fraction(3, 5)
    assert not is_repeat("fix bugs", "fix bug") and not is_repeat("fix bug", "fix bugs")


def test_from_eight_characters_trigram_overlap_decides_threshold_included() -> None:
    assert len("run test") == 8 and _overlap("run test", "run tests") >= Fraction(3, 5)
    assert is_repeat("run test", "run tests")
    assert _overlap("run the tests", " the tests") == Fraction(3, 5)
    assert is_repeat("run the tests", " the tests")


def test_only_the_opening_of_the_next_message_is_read() -> None:
    turn = Turn(id="x", index=0, request="refactor the parser")

    def reaction(reply: str) -> str:
        return classify_reaction(turn, Turn(id="y", index=1, request=reply))

    inside, past = "x" * 78 + "違う", "x" * 79 + "違う"  # ends at the 80th character, or past
    assert reaction(inside) == "correction"
    assert reaction(past) == "none"
