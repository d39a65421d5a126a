"""`Known`: what one tune knows of each candidate of its key (`Result`), kept as it is
learnt, persisted when its identity is known, and ranked for the record.

Why apart from the tuner: every way a result arrives (a race here, another node's share,
the store's reuse, the final) goes through `keep`, so "persisted as soon as known" and
"an unknown identity is no fact about any code" are written once; and the ranking the
record and the final read (the final's order, then the rest by median) is one rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from clmodes.store.store import Store
from clmodes.tune.measuring.finals import Contender
from clmodes.records.measurement import CandidateMeasurement


@dataclasses.dataclass
class Result:
    """What is known of one candidate for this key: its identity and its measurement."""

    identity: str | None  # None: unknown (its kernels could not be gathered)
    measurement: CandidateMeasurement  # as the store keeps it (no identity in it)
    race: int  # which race measured it (-1: an earlier tune, from the store)
    node: str = ""  # who measured it, in a shared tune ("" here)

    @property
    def median(self) -> float | None:
        return self.measurement.median


@dataclasses.dataclass
class Known:
    """Results of `key` (model, tunable, key) as `store` keeps them; `note` sees each
    (the output checker); `node` is who measures here ("" alone)."""

    store: Store
    key: tuple[str, str, str]
    node: str
    note: Callable[[str, CandidateMeasurement], None]
    results: dict[str, Result] = dataclasses.field(default_factory=dict)
    decided: list[str] = dataclasses.field(default_factory=list)  # the final's order

    def keep(self, name: str, identity: str | None, record: CandidateMeasurement,
             race_index: int, node: str | None = None, persist: bool = True) -> None:
        """Know `record` for `name`; persisted when its identity is known (an unknown
        one, a failure to gather, is no fact about any code) unless it came from the
        store (`persist=False`)."""
        self.results[name] = Result(identity, record, race_index,
                                    self.node if node is None else node)
        self.note(name, record)
        if identity is not None and persist:
            self.store.put_measurement_record(*self.key, name, identity, record)

    def median(self, name: str) -> float | None:
        return self.results[name].median if name in self.results else None

    def ranked(self) -> list[str]:
        """The final's order first (its decision), then the rest by median."""
        timed = sorted((r.median, name) for name, r in self.results.items()
                       if r.median is not None)
        return list(dict.fromkeys(
            [name for name in self.decided if self.median(name) is not None]
            + [name for _, name in timed]))

    def contenders(self) -> dict[str, Contender]:
        """Every timed result as the choice of finalists reads it."""
        return {name: Contender(r.median, min(r.measurement.samples_s, default=r.median),
                                (r.race, r.node))
                for name, r in self.results.items() if r.median is not None}
