"""`Budget(seconds=None, configs=None)`: what stops a search, whatever its strategy.

Strategies only propose; the tuner measures and keeps the budget. Keeping them apart is
what makes "a budget of N configs measures exactly N" hold for every strategy: the tuner
trims each generation to `remaining_configs` before building it, so no strategy needs to
know about budgets and none can overshoot. `measured` is whatever the caller counts (the
configs this tune measured, told results of a resumed tune included or not: the tuner
decides); `elapsed_s` likewise.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Budget:
    """At most `configs` measured configs and/or `seconds` of tuning; None: no limit."""

    seconds: float | None = None
    configs: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and not (self.seconds > 0 and math.isfinite(self.seconds)):
            raise ValueError(f"Budget: seconds must be a positive number, got {self.seconds!r}")
        if self.configs is not None and (isinstance(self.configs, bool)
                                         or not isinstance(self.configs, int) or self.configs < 1):
            raise ValueError(f"Budget: configs must be a positive int, got {self.configs!r}")

    def remaining_configs(self, measured: int) -> int | None:
        """How many more configs may be measured (None: unlimited by count)."""
        return None if self.configs is None else max(0, self.configs - measured)

    def exhausted(self, elapsed_s: float, measured: int) -> bool:
        if self.configs is not None and measured >= self.configs:
            return True
        return self.seconds is not None and elapsed_s >= self.seconds

    def trim(self, generation: Sequence[T], measured: int) -> list[T]:
        """The part of a proposed generation the budget still allows (in order)."""
        remaining = self.remaining_configs(measured)
        return list(generation) if remaining is None else list(generation[:remaining])
