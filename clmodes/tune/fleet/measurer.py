"""`Measurer`: how a tune measures its generations and makes its decision, and `Local`,
the measurer of a tune measured whole in this process.

Why a protocol: the tuner is one ask -> measure -> tell loop (`strategies.running.drive`)
whatever measures; spreading a tune over a fleet's nodes (`tune.fleet.spreading`) changes who
measures which part of a generation, when the search stops and who decides, and nothing
else. Those four answers live in the measurer, so the tuner has no branch for the fleet
and a new way to measure (another transport, another split) is one class, not a seventh
`if` through every tune method.

A measurer never touches the store or the device: it is handed `here(part)`, the tuner's
measure-in-this-process (gather, build in one batch, race, persist), and gets back the
entries it posted; it returns what *other* processes measured, which the tuner keeps as
it keeps its own.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Protocol

from clmodes.records.tune import SpreadInfo, TuneRecord
from clmodes.tune.fleet.sharing import Entry
from clmodes.tune.search.spending import Spending

log = logging.getLogger("clmodes")

MeasureHere = Callable[[list[str]], dict[str, Entry]]  # a part measured here: its entries
Foreign = dict[str, tuple[Entry, str]]  # name -> (its entry, the node that measured it)


class Measurer(Protocol):
    """Who measures what of a generation, when the search stops, and who decides."""

    @property
    def node(self) -> str:
        """This process's name among those measuring ("" when it measures alone)."""

    def share(self, names: list[str]) -> list[str]:
        """The part of a generation this process gathers and measures."""

    def measure(self, names: list[str], here: MeasureHere, spending: Spending) -> Foreign:
        """Measure the generation `names` (this process's part by `here`); what others
        measured of it."""

    def exhausted(self, spending: Spending) -> bool:
        """Does the search stop before its next generation?"""

    def decide(self, here: Callable[[], TuneRecord]) -> TuneRecord:
        """The key's record: `here()` (re-race the finalists here and record), or adopted."""

    def spread(self) -> SpreadInfo | None:
        """What the record says of where it was measured (None: here alone)."""


@dataclasses.dataclass(frozen=True)
class Local:
    """A tune measured whole here: every name, in slices paced by the budget
    (`Spending.next_slice`: the first result early, the time budget not overshot), the
    budget on time and count, the decision re-raced here. What no slice measured (the
    time ran out) is not built and not told: the tuner keeps only what was measured."""

    @property
    def node(self) -> str:
        return ""

    def share(self, names: list[str]) -> list[str]:
        return names

    def measure(self, names: list[str], here: MeasureHere, spending: Spending) -> Foreign:
        left = list(names)
        while left:
            count = spending.next_slice(len(left))
            if count == 0:
                log.info("time budget: %d configs of the generation left unmeasured", len(left))
                break
            part, left = left[:count], left[count:]
            started = time.perf_counter()
            here(part)
            spending.note_cost(len(part), time.perf_counter() - started)
        return {}

    def exhausted(self, spending: Spending) -> bool:
        return spending.spent()

    def decide(self, here: Callable[[], TuneRecord]) -> TuneRecord:
        return here()

    def spread(self) -> SpreadInfo | None:
        return None
