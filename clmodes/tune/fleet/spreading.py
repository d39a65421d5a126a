"""`Spreading`: the measurer of a tune spread over a fleet's identical devices, on the
`Sharing` hook (`tune.fleet.sharing`: the share, the ledger, the leader's decision), and
`measurer_for`, the one place a tune's measurer is chosen.

What differs from measuring alone (`tune.fleet.measurer.Local`): this process measures only
its share of each generation and keeps every share's results; the search stops on the
count or when any node's post says its budget is spent (the group keeps time: nodes run
at their own pace); the leader re-races the finalists on its own device and the others
adopt its record; the record says how many configs each node measured.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from clmodes.tune.fleet.measurer import Foreign, Local, MeasureHere, Measurer
from clmodes.records.tune import SpreadInfo, TuneRecord
from clmodes.tune.fleet.sharing import Sharing
from clmodes.tune.search.spending import Spending


@dataclasses.dataclass
class Spreading:
    """One key's tune through `sharing`; `key` names it on the ledger (JSON)."""

    sharing: Sharing
    key: str
    generations: int = 0
    stopped: bool = False  # the group said stop (a node's time budget spent)
    measured_by: dict[str, str] = dataclasses.field(default_factory=dict)  # name -> node

    @property
    def node(self) -> str:
        return self.sharing.node

    def share(self, names: list[str]) -> list[str]:
        return self.sharing.share(names)

    def measure(self, names: list[str], here: MeasureHere, spending: Spending) -> Foreign:
        shared = self.sharing.measure(self.key, self.generations, names, here, spending.spent)
        self.generations += 1
        self.stopped = self.stopped or shared.stop
        self.measured_by.update(shared.measured_by)
        return {name: (entry, shared.measured_by.get(name, "?"))
                for name, entry in shared.results.items()
                if shared.measured_by.get(name) != self.node}

    def exhausted(self, spending: Spending) -> bool:
        return self.stopped or spending.spent(on_time=False)

    def decide(self, here: Callable[[], TuneRecord]) -> TuneRecord:
        return TuneRecord.from_json(self.sharing.decide(self.key, lambda: here().to_json()))

    def spread(self) -> SpreadInfo:
        """Where the measurements were taken, and that the finalists were re-raced here
        (the record the others adopt)."""
        counts: dict[str, int] = {}
        for node in self.measured_by.values():
            counts[node] = counts.get(node, 0) + 1
        return SpreadInfo(self.sharing.nodes, counts, self.node)


def measurer_for(sharing: Sharing | None, key: str) -> Measurer:
    """A tune's measurer: spread through `sharing` when a fleet warm installed one, else
    local (and then nothing of the fleet runs)."""
    return Local() if sharing is None else Spreading(sharing, key)
