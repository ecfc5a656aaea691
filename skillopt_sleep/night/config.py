"""The knobs of one night, with the paper's defaults."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from skillopt_sleep.config import MIN_LIFT
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.tables import BUDGET_SCHEDULES, GATE_TESTS

__all__ = ["MIN_LIFT", "NightConfig"]


@dataclass(frozen=True)
class NightConfig:
    steps: int = 3
    budget_start: int = 4
    budget_end: int = 2
    schedule: str = "cosine"
    """A row of ``BUDGET_SCHEDULES``."""
    batch_size: int = 8
    train_samples: int = 1
    train_batch: int = 8
    """Train tasks scored per step for reflection (a seeded minibatch; 0: the whole split).
    Reflection reads failures and successes of these tasks only."""
    val_repeats: int = 3
    min_val_pairs: int = 36
    """With few validation tasks, sample each more often (never fewer than ``val_repeats``)
    so the gate's paired test has about this many pairs to work with. The sequential gate
    stops as soon as a comparison is decided, so a larger cap costs pairs only on the
    near-misses it gives a chance (the full pipeline's proof, two validation families:
    with 24, 18 of 20 seeds held; with 36, 20 of 20)."""
    noise_probe: int = 8
    """Train tasks the A/A probe replays once more with the incumbent's twin before the first
    gate (``night.noise``: how often answers differ when the skill changes without saying
    anything new), from the first step's minibatch; paid once, its pairs carried to the
    skill's next nights. 0: no probe, every lead at ``repeats``."""
    noisy_flips: float = 0.12
    """The probe's share of checks that flip (``night.noise``) at which the target counts as
    noisy, and each comparison's lead (``night.scoring``: the tasks its evidence points at)
    may draw ``noisy_lead`` times the others' samples (0: never). Above most nights of the
    shipped personas (their medians 0.06 to 0.09) and below most of the hard persona's
    (median 0.155; ``night.noise``)."""
    noisy_lead: float = 2.0
    """How many times the others' samples a noisy target's lead may draw."""
    test_repeats: int = 1
    test_tasks: int = 48
    """Test tasks the report scores, at most: whole families in a stable hash order, the
    lift reported with its interval (0: the whole split; see ``night.measure``)."""
    score_test: bool = True
    """Score the test split at the end of the night (skill before and after), for the report.
    It never gates; the proof turns it off and scores the test split once itself."""
    alpha: float = 0.05
    familiar_alpha: float = 0.01
    """The level a *familiar* edit is tested at (never above ``alpha``): under ``screen``
    ``behaviour``, one whose first look's pairs do not differ at all; under ``words``, one
    whose words of what the validation tasks are judged on one line of the skill holds
    already, or that has none (``night.scoring``)."""
    screen: Literal["behaviour", "behaviour-only", "words"] = "behaviour"
    """How the gate orders pairs and finds familiar edits (``night.scoring``): ``behaviour``
    leads with the tasks the edit's cited evidence failed, then those its words touch, and
    reads familiarity from the first look's answers; ``behaviour-only`` ignores the words;
    ``words`` is the earlier rule, all by shared words."""
    margin: float = 0.0
    metric: Literal["hard", "soft", "mixed"] = "mixed"
    gate_test: str = "sequential"
    """A row of ``GATE_TESTS``; ``accept-all`` turns the gate off (the ablation)."""
    no_regression: bool = False
    min_val_tasks: int = 4
    slow_update: bool = True
    max_tokens: int = 1024
    temperature: float = 0.7
    concurrency: int = 4
    """Replays run at once: the night's own thread pool, or the replays in flight on a given
    executor whose workers are other processes (``night.remote``); a given thread pool keeps
    its own size. Results do not depend on it."""
    max_success_batches: int = 1
    min_support: int = 2
    """An edit reaches the gate only if it cites at least this many minibatch tasks (1: any
    edit); see ``night.candidates``."""
    anecdotes: int = 1
    """In a step where no candidate cites ``min_support`` tasks, this many of them (the best
    ranked) still reach the gate: a real minibatch is diverse, and a good rule may show in
    one task of it."""
    restate_overlap: float = 0.8
    """Word overlap at which an edit's text counts as a line the skill already holds, or as
    a better-ranked candidate (> 1: never), and is dropped before the gate."""
    idle_steps: int = 0
    """Stop the night's steps after this many steps in a row accepted nothing (0: never)."""

    def repeats_for(self, n_val: int) -> int:
        """Validation samples per task with ``n_val`` tasks (``min_val_pairs``)."""
        return max(self.val_repeats, -(-self.min_val_pairs // max(n_val, 1)))

    def __post_init__(self) -> None:
        # Unknown names fail here, when the night is configured, not at its first gate.
        GATE_TESTS.row(self.gate_test)
        if self.concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, not {self.concurrency}")
        BUDGET_SCHEDULES.row(self.schedule)
        if self.test_tasks < 0:
            raise ConfigError(f"test_tasks must be 0 (the whole split) or more, not "
                              f"{self.test_tasks}")
        if self.min_support < 1:
            raise ConfigError(f"min_support must be at least 1, not {self.min_support}")
        if self.anecdotes < 0:
            raise ConfigError(f"anecdotes must be 0 or more, not {self.anecdotes}")
        if self.screen not in ("behaviour", "behaviour-only", "words"):
            raise ConfigError(f"screen must be behaviour, behaviour-only or words, not "
                              f"{self.screen!r}")
        if not 0 < self.familiar_alpha < 1:
            raise ConfigError(f"familiar_alpha must be between 0 and 1, not {self.familiar_alpha}")
        if self.noise_probe < 0 or self.noisy_flips < 0 or self.noisy_lead < 1:
            raise ConfigError("noise_probe and noisy_flips must be 0 or more and noisy_lead at "
                              f"least 1, not {self.noise_probe}, {self.noisy_flips}, "
                              f"{self.noisy_lead}")
        if self.idle_steps < 0:
            raise ConfigError(f"idle_steps must be 0 (never stop early) or more, not "
                              f"{self.idle_steps}")
