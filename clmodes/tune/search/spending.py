"""`Spending`: one tune's budget as it is spent (its clock and what it measured), the one
place the budget is checked.

Why apart from `Budget`: a `Budget` is what the user asked for; what counts against it
is the tune's business, and it used to be written out at each place that asked (the
search loop, a spread tune's posts, the finalists' re-race). A spread tune counts the
same configs but leaves time to the group (nodes run at their own pace, and a node's own
clock would stop the search on one node only): `spent(on_time=False)`.

Pacing (`next_slice`, `note_cost`), under a time budget: a generation is measured in slices (`tune.fleet.measurer.
Local`), each built, checked and raced before the next, its results told at once. The
first slice of a tune is one config, so the first result is known after one config's
cost (a compile, a first launch that generates code on PoCL), as a tuner measuring one
config at a time knows it, not after a whole generation's. Later slices are sized by the
seconds per config seen so far, to about `SLICE_S` each: batching still pays where a
config is cheap to build (PoCL's ~0.2 s fixed per build), and where it is not (a GEMM
config's compile on Intel, its first launch on PoCL) every config is its own slice. The
same estimate keeps the time budget: a slice the remaining seconds cannot pay for is not
built, so a tune neither overshoots its budget by a generation (the budget used to be
checked only between generations) nor builds configs it never measures. The trap: the
estimate includes everything a slice costs (gathering, build, check, race), because
that is what the budget pays; a compile-only cost would let a PoCL tune overrun by
every first launch. Without a time budget a generation stays one slice: nothing waits on
the clock, and a race of the whole generation compares its candidates under the same
moments of load.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import TypeVar

from clmodes.tune.search.budget import Budget

T = TypeVar("T")

SLICE_S = 1.0  # seconds a slice of a generation should cost, once a config's cost is known


@dataclasses.dataclass
class Spending:
    """`budget` (None: no limit) against the tune started at `started` and the names its
    generations measured (`measured`: re-races of the finalists are not counted)."""

    budget: Budget | None
    started: float = dataclasses.field(default_factory=time.perf_counter)
    measured: set[str] = dataclasses.field(default_factory=set)
    costed: int = 0  # configs whose measuring was timed (`note_cost`)...
    cost_s: float = 0.0  # ...and the seconds that took

    def note_cost(self, configs: int, seconds: float) -> None:
        """A slice of `configs` configs took `seconds` to measure (build, check, race)."""
        self.costed += configs
        self.cost_s += max(0.0, seconds)

    def per_config_s(self) -> float | None:
        """Seconds per config measured so far (None: none timed yet)."""
        return self.cost_s / self.costed if self.costed else None

    def next_slice(self, left: int) -> int:
        """How many of the `left` configs of a generation to measure next (0: the time
        budget cannot pay for one more). Without a time budget, all of them: one build
        and one race of the whole generation, nothing waits on the clock. With one: one
        while no cost is known, then about `SLICE_S` worth, no more than the remaining
        seconds pay for."""
        if left <= 0:
            return 0
        if self.budget is None or self.budget.seconds is None:
            return left
        per_config = self.per_config_s()
        if per_config is None or per_config <= 0:
            return 1
        affordable = int(max(0.0, self.budget.seconds - self.elapsed()) / per_config)
        return min(max(1, int(SLICE_S / per_config)), affordable, left)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def spent(self, on_time: bool = True) -> bool:
        """Is the budget exhausted: its count, and its time unless `on_time` is False."""
        return self.budget is not None and self.budget.exhausted(
            self.elapsed() if on_time else 0.0, len(self.measured))

    def out_of_time(self) -> bool:
        """Is the time budget (alone) spent: what ends the finalists' extra races."""
        return self.budget is not None and self.budget.seconds is not None \
            and self.elapsed() >= self.budget.seconds

    def trim(self, generation: Sequence[T]) -> list[T]:
        """The part of a proposed generation the count still allows (in order)."""
        return list(generation) if self.budget is None \
            else self.budget.trim(generation, len(self.measured))
