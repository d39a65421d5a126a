"""`Spending`: one tune's budget as it is spent (its clock and what it measured), the one
place the budget is checked.

Why apart from `Budget`: a `Budget` is what the user asked for; what counts against it
is the tune's business, and it used to be written out at each place that asked (the
search loop, a spread tune's posts, the finalists' re-race). A spread tune counts the
same configs but leaves time to the group (nodes run at their own pace, and a node's own
clock would stop the search on one node only): `spent(on_time=False)`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import TypeVar

from clmodes.tune.budget import Budget

T = TypeVar("T")


@dataclasses.dataclass
class Spending:
    """`budget` (None: no limit) against the tune started at `started` and the names its
    generations measured (`measured`: re-races of the finalists are not counted)."""

    budget: Budget | None
    started: float = dataclasses.field(default_factory=time.perf_counter)
    measured: set[str] = dataclasses.field(default_factory=set)

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
