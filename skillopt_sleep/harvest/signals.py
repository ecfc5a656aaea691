"""Outcomes of a turn: structured signals first, then the user's next message.

Structured signals (tool errors, non-zero exits, cancels, interrupts, refusals, votes) are
set by each format's reader. This module adds the reaction: how the *next* user message
treated the answer. It looks only at that next message, never at the text of the turn
itself (upstream matched "wrong" inside the task prompt), and only at its opening clause,
with word boundaries, so "what's wrong with X?" or "fixed-width" do not count. A repeat of
the same request is detected by character trigrams, which works in any script. The phrase
packs are short and multilingual; a message that matches none is ``none``, not a guess.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from skillopt_sleep.records import Reaction, Signal, Turn

__all__ = ["NEGATIVE_SIGNALS", "classify_reaction", "is_repeat", "set_reactions"]

NEGATIVE_SIGNALS = frozenset(
    {Signal.TOOL_ERROR.value, Signal.NONZERO_EXIT.value, Signal.CANCELLED.value,
     Signal.INTERRUPTED.value, Signal.REFUSED_TOOL.value, Signal.VOTE_DOWN.value}
)

# Opening words that reject the previous answer. Latin-script packs are anchored at the
# start of the message; scripts without word spaces (ja, zh) are matched in the opening
# clause. English, Spanish, French, German, Portuguese, Italian, Russian, Japanese, Chinese.
_CORRECTION_START = re.compile(
    r"^(?:no\b(?!\s+(?:problem|worries|need)\b)|nope\b|wrong\b|incorrect\b|not\s+(?:quite|"
    r"what|that|right|correct)\b|that'?s\s+(?:not|wrong|incorrect)\b|thats\s+(?:not|wrong)\b|"
    r"(?:it|this|that)\s+(?:still\s+)?(?:doesn'?t|does\s+not|didn'?t|did\s+not|isn'?t|is\s+not)"
    r"\s+work|still\s+(?:broken|failing|fails|wrong|not|doesn'?t|the\s+same)\b|"
    r"(?:please\s+)?(?:revert|undo)\b|don'?t\b|do\s+not\b|stop\b|actually\b|instead\b|"
    r"you\s+(?:forgot|missed|broke|didn'?t|ignored)\b|why\s+did\s+you\b|"
    r"eso\s+no\b|no\s+es\b|todav[ií]a\s+no\b|sigue\s+(?:sin|fallando|mal)\b|incorrecto\b|"
    r"non\b|pas\s+(?:ça|ca)\b|(?:ça|ca)\s+ne\s+marche\s+pas\b|toujours\s+pas\b|faux\b|"
    r"nein\b|falsch\b|immer\s+noch\b|funktioniert\s+(?:immer\s+noch\s+)?nicht\b|"
    r"n[ãa]o\b|ainda\s+n[ãa]o\b|errado\b|sbagliato\b|ancora\s+non\b|"
    r"нет\b|не\s+так\b|неправильно\b|неверно\b|вс[её]\s+ещ[её]\b|опять\b|не\s+работает\b)",
    re.IGNORECASE,
)
_CORRECTION_CJK = re.compile(
    r"違う|ちがう|そうじゃな|じゃなくて|まだ(?:動かない|エラー)|不对|错了|不是这样|还是不行|还是错"
)

_APPROVAL_START = re.compile(
    r"^(?:thanks?\b|thank\s+you\b|thx\b|ty\b|perfect\b|great\b|excellent\b|awesome\b|nice\b|"
    r"lgtm\b|looks\s+good\b|works(?:\s+now)?\b|(?:that|it)\s+works\b|good\s+job\b|well\s+done\b|"
    r"cool\b|ok(?:ay)?\s*[,!.]?\s*(?:thanks|great|perfect|good|now|next)\b|"
    r"yes\s*[,!.]?\s*(?:that|this|perfect|exactly|great)\b|exactly\b|"
    r"gracias\b|perfecto\b|genial\b|merci\b|parfait\b|super\b|danke\b|perfekt\b|"
    r"obrigad[oa]\b|perfeito\b|[óo]timo\b|grazie\b|perfetto\b|спасибо\b|отлично\b|супер\b)",
    re.IGNORECASE,
)
_APPROVAL_CJK = re.compile(r"ありがとう|完璧|いいね|バッチリ|谢谢|完美|很好|好的，谢谢")

_REPEAT_THRESHOLD = 0.6


@lru_cache(maxsize=512)  # each request is compared with the one before and the one after
def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().strip()
    return re.sub(r"\s+", " ", text.replace("’", "'"))


def _opening(text: str, limit: int = 80) -> str:
    return text[:limit]


@lru_cache(maxsize=512)
def _trigrams(text: str) -> frozenset[str]:
    text = f"  {text} "
    return frozenset(text[i : i + 3] for i in range(len(text) - 2))


def is_repeat(first: str, second: str) -> bool:
    """Whether ``second`` asks for the same thing as ``first`` (trigram Jaccard, any script)."""
    a, b = _normalise(first), _normalise(second)
    if not a or not b or min(len(a), len(b)) < 8:
        return a == b and bool(a)
    ta, tb = _trigrams(a), _trigrams(b)
    return len(ta & tb) / len(ta | tb) >= _REPEAT_THRESHOLD


def classify_reaction(turn: Turn, following: Turn | None) -> str:
    """The ``Reaction`` value of ``turn`` given the next user turn (None: the session ended)."""
    if following is None:
        return Reaction.NONE.value
    text = _normalise(following.request)
    if is_repeat(turn.request, following.request):
        return Reaction.REPEAT.value
    opening = _opening(text)
    if _CORRECTION_START.search(opening) or _CORRECTION_CJK.search(opening):
        return Reaction.CORRECTION.value
    # An answer the user cut off and then followed with a new message was rejected.
    if Signal.INTERRUPTED.value in turn.signals or Signal.CANCELLED.value in turn.signals:
        return Reaction.CORRECTION.value
    if _APPROVAL_START.search(opening) or _APPROVAL_CJK.search(opening):
        return Reaction.APPROVAL.value
    return Reaction.NONE.value


def set_reactions(turns: list[Turn]) -> None:
    """Fill ``reaction`` on every turn from the turn after it."""
    for i, turn in enumerate(turns):
        turn.reaction = classify_reaction(turn, turns[i + 1] if i + 1 < len(turns) else None)
