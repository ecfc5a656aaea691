"""``handoff``: the user's own agent answers the model calls, through files.

For a user with no API key but a coding agent at hand. Each call becomes a prompt file
``<dir>/pending/<key>.md``; the agent (or the user) writes the answer to
``<dir>/answers/<key>.md`` and re-runs the command, which then resumes: answered calls
return their answer, an unanswered one writes its prompt and raises ``HandoffPending``
(exit code 3); a batch of replays writes all its prompts before it raises.
The key hashes the messages, parameters and seed, so a re-run asks exactly the same
questions and distinct samples get distinct files.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep import paths
from skillopt_sleep.errors import HandoffPending
from skillopt_sleep.models.base import LLM, Backend, BackendOptions
from skillopt_sleep.models.cache import call_key
from skillopt_sleep.models.pricing import FREE
from skillopt_sleep.records import Completion, Message
from skillopt_sleep.secrets import redact

INSTRUCTIONS = """\
# Pending model calls from skillopt-sleep

Each `pending/<key>.md` file is one prompt. Answer it as the model would: write only the
answer to `answers/<key>.md` (same key), nothing else. Then re-run the skillopt-sleep
command; it resumes where it stopped and may leave new prompts here.
"""


def default_dir() -> Path:
    return paths.handoff_dir()


class HandoffLLM:
    """An ``LLM`` whose answers come from files; a missing answer raises ``HandoffPending``."""

    def __init__(self, directory: Path | None = None, name: str = "handoff"):
        self.name = name
        self.price = FREE
        self.directory = directory or default_dir()

    @property
    def pending_dir(self) -> Path:
        return self.directory / "pending"

    @property
    def answers_dir(self) -> Path:
        return self.directory / "answers"

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        seed: int,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> Completion:
        key = call_key(self.name, messages, max_tokens=max_tokens, temperature=temperature,
                       seed=seed, tools=tools)[:24]
        answer = self.answers_dir / f"{key}.md"
        if answer.is_file():
            text = answer.read_text(encoding="utf-8").strip()
            if text:
                (self.pending_dir / f"{key}.md").unlink(missing_ok=True)
                return Completion(text=text)
        self._write_pending(key, messages, max_tokens=max_tokens, seed=seed)
        # Other calls may still be writing theirs: a run recounts when it stops.
        count = len(unanswered(self.directory))
        raise HandoffPending(
            f"waiting for {count} answer(s) in {self.pending_dir}; write each answer to "
            f"{self.answers_dir}/<same name> and run the command again")

    def _write_pending(self, key: str, messages: Sequence[Message], *, max_tokens: int,
                       seed: int) -> None:
        paths.ensure(self.pending_dir)
        paths.ensure(self.answers_dir)
        readme = self.directory / "README.md"
        if not readme.exists():
            readme.write_text(INSTRUCTIONS, encoding="utf-8")
        head = json.dumps({"key": key, "max_tokens": max_tokens, "sample": seed})
        parts = [f"<!-- {head} -->", f"Answer in at most about {max_tokens} tokens. "
                 f"Write the answer to answers/{key}.md.", ""]
        for message in messages:
            parts += [f"## {message.get('role', 'user')}", "", message.get("content", ""), ""]
        # The prompt is read by another agent (and the user): redacted whole, like every
        # file the tool writes for people.
        _atomic_write(self.pending_dir / f"{key}.md", redact("\n".join(parts))[0])


def unanswered(directory: Path) -> list[Path]:
    """The prompts in ``directory/pending`` with no (non-empty) answer yet: a prompt whose
    answer is written stays in ``pending`` until a run reads the answer."""
    answers = directory / "answers"
    return sorted(p for p in (directory / "pending").glob("*.md")
                  if not _answered(answers / p.name))


def _answered(path: Path) -> bool:
    try:
        return bool(path.read_text(encoding="utf-8").strip())
    except OSError:
        return False


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def _build(options: BackendOptions) -> LLM:
    return HandoffLLM()


BACKEND = Backend(_build, priced=False, cacheable=False, concurrency=1)
