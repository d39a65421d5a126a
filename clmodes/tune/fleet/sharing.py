"""Spreading one tune over several identical devices: each measures a share of every
generation, all of them tell the search the same results.

The tuner asks its hook (`Sharing`, None by default: no hook, no cost) to measure a
generation instead of measuring it whole. `Spread`, the hook, keeps this node's share
(`names[rank::nodes]`), has the tuner gather, build (one batch) and race only that,
posts the results to a `Ledger` shared by the group and waits for every other share.
Every node then tells its search the same results in the same order, so a seeded
strategy proposes the same next generation everywhere: nothing but results crosses
nodes, and the strategy is unchanged.

The ledger is first-write-wins per (key, generation, share): whoever posts a share
first decides it, and every node reads back what was decided. That makes faults cheap
to handle without a coordinator: a share still missing after `timeout_s` (its node
died or hangs) is measured by the waiting node of the lowest rank (rank r waits
`timeout_s * (1 + r)`, so the leader takes over first) and posted; if the slow node
posts after all, its post is ignored, and everyone still agrees.

Stopping: a count budget is deterministic (every node counts the whole generation), a
time budget is not (nodes run at their own pace). Each post carries whether its
poster's budget was exhausted; the generation stops the search when any post says so,
which every node reads from the same posts.

The decision: only the leader (rank 0) re-races the finalists, on its one device, so
that results of different physical devices are never compared for the decision; it
posts the record, and the others adopt it (`Spread.decide`). A leader that never posts
within the deadline is taken over by the next rank, which re-races on its own device.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from clmodes.errors import TuneError
from clmodes.records.tune import TuneRecord

log = logging.getLogger("clmodes")

Record = dict[str, Any]  # a tune record's JSON (`TuneRecord.to_json`): the ledger is data
Entry = dict[str, Any]  # {"identity": str | None, "record": a measurement's JSON}
POLL_S = 0.05
DEFAULT_TIMEOUT_S = 120.0


@dataclasses.dataclass(frozen=True)
class Post:
    """One share of one generation, as the ledger decided it."""

    share: int
    node: str  # who measured it (a node that took a missing share over: itself)
    results: dict[str, Entry]
    exhausted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def of(cls, data: dict[str, Any]) -> "Post":
        return cls(int(data["share"]), str(data["node"]), dict(data["results"]),
                   bool(data.get("exhausted", False)))


@dataclasses.dataclass(frozen=True)
class Shared:
    """A generation measured by the group: every result, who measured it, and whether
    the search stops after it."""

    results: dict[str, Entry]
    measured_by: dict[str, str]  # name -> node
    stop: bool


class Ledger(Protocol):
    """What the nodes of a group share (a Ray actor in the fleet, `MemoryLedger` in a
    test). Values are JSON-able dicts: a ledger is data."""

    def post(self, key: str, generation: int, post: dict[str, Any]) -> dict[str, Any]:
        """Record `post` unless its share is already posted; the share as decided."""

    def posts(self, key: str, generation: int) -> list[dict[str, Any]]:
        """The shares of that generation posted so far."""

    def decide(self, key: str, decision: dict[str, Any]) -> dict[str, Any]:
        """Record the key's decision unless one is; the decision as recorded."""

    def decision(self, key: str) -> dict[str, Any] | None:
        """The key's decision, once posted."""


class Sharing(Protocol):
    """The tuner's hook (`Tuner.sharing`): how a generation is measured and how the
    decision is made when a tune is shared with other processes."""

    node: str  # this process's name in the group
    nodes: int  # how many share the tune

    def share(self, names: list[str]) -> list[str]:
        """This process's part of a generation (what its gathering pass queues)."""

    def measure(self, key: str, generation: int, names: list[str],
                measure: Callable[[list[str]], dict[str, Entry]],
                exhausted: Callable[[], bool]) -> Shared:
        """Every result of the generation `names`; `measure(part)` measures a part here."""

    def decide(self, key: str, rerace: Callable[[], Record]) -> Record:
        """The key's record: made here by `rerace()` (the leader), or adopted."""


class MemoryLedger:
    """A ledger in memory, for threads of one process (the tests; the protocol's
    reference). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._posts: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}
        self._decisions: dict[str, dict[str, Any]] = {}

    def post(self, key: str, generation: int, post: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            shares = self._posts.setdefault((key, generation), {})
            return shares.setdefault(int(post["share"]), post)

    def posts(self, key: str, generation: int) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._posts.get((key, generation), {}).values())

    def decide(self, key: str, decision: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            return self._decisions.setdefault(key, decision)

    def decision(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self._decisions.get(key)


@dataclasses.dataclass
class Spread:
    """This node's part in a spread tune: rank `rank` of `nodes`, named `node`.

    Counts what it measured itself (`configs`, `took_over`), for the fleet's report."""

    ledger: Ledger
    rank: int
    nodes: int
    node: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    poll_s: float = POLL_S
    configs: int = 0  # configs this node measured (its shares and those it took over)
    took_over: int = 0  # shares of other nodes it measured after their deadline
    keys: int = 0  # keys whose decision it took part in
    reraced: int = 0  # keys whose finalists it re-raced

    def __post_init__(self) -> None:
        if not 0 <= self.rank < self.nodes:
            raise ValueError(f"spread: rank {self.rank} is not one of {self.nodes} nodes")

    def share(self, names: list[str], share: int | None = None) -> list[str]:
        """The names of one share (this node's by default) of a generation."""
        return names[(self.rank if share is None else share)::self.nodes]

    def measure(self, key: str, generation: int, names: list[str],
                measure: Callable[[list[str]], dict[str, Entry]],
                exhausted: Callable[[], bool]) -> Shared:
        mine = self.share(names)
        if mine:
            self._post(key, generation, self.rank, measure(mine), exhausted())
        wanted = [s for s in range(self.nodes) if self.share(names, s)]
        waited_since = time.monotonic()
        deadline = self.timeout_s * (1 + self.rank)
        while True:
            posted = {p.share: p for p in map(Post.of, self.ledger.posts(key, generation))}
            missing = [s for s in wanted if s not in posted]
            if not missing:
                return self._shared(posted, names)
            if time.monotonic() - waited_since >= deadline:
                for share in missing:
                    log.warning("spread: share %d of %s generation %d not posted within "
                                "%.0f s; measuring it here on %s", share, key, generation,
                                deadline, self.node)
                    self.took_over += 1
                    self._post(key, generation, share, measure(self.share(names, share)),
                               exhausted())
                continue
            time.sleep(self.poll_s)

    def _post(self, key: str, generation: int, share: int, results: dict[str, Entry],
              exhausted: bool) -> None:
        decided = Post.of(self.ledger.post(
            key, generation, Post(share, self.node, results, exhausted).as_dict()))
        if decided.node == self.node:
            self.configs += len(results)

    @staticmethod
    def _shared(posted: dict[int, Post], names: list[str]) -> Shared:
        results: dict[str, Entry] = {}
        measured_by: dict[str, str] = {}
        for post in posted.values():
            results.update(post.results)
            measured_by.update({name: post.node for name in post.results})
        ordered = {name: results[name] for name in names if name in results}
        return Shared(ordered, measured_by, any(p.exhausted for p in posted.values()))

    def decide(self, key: str, rerace: Callable[[], Record]) -> Record:
        self.keys += 1
        waited_since = time.monotonic()
        deadline = self.timeout_s * self.rank  # the leader decides at once
        while True:
            found = self.ledger.decision(key)
            if found is not None:
                return self._adopted(key, found)
            if time.monotonic() - waited_since >= deadline:
                if self.rank:
                    log.warning("spread: no decision for %s within %.0f s; re-racing the "
                                "finalists here on %s", key, deadline, self.node)
                try:
                    record = rerace()
                except TuneError as error:  # every candidate failed: so it does for all
                    self.ledger.decide(key, {"failed": str(error), "node": self.node})
                    raise
                decided = self.ledger.decide(key, record)
                if decided == record:
                    self.reraced += 1
                    return record
                return self._adopted(key, decided)
            time.sleep(self.poll_s)

    def _adopted(self, key: str, decision: dict[str, Any]) -> Record:
        """Another node's decision, as this node records it: its re-race, measured on
        that node's device, and adopted here."""
        if "failed" in decision:  # the ledger's word that the key failed, not a record
            raise TuneError(f"{decision['failed']} (decided on {decision.get('node', '?')})")
        record = TuneRecord.from_json(decision).adopted_on(self.node)
        log.info("spread: %s: adopted the decision re-raced on %s", key,
                 record.spread.reraced_on if record.spread and record.spread.reraced_on else "?")
        return record.to_json()

    def summary(self) -> dict[str, Any]:
        return {"node": self.node, "rank": self.rank, "nodes": self.nodes,
                "configs": self.configs, "took_over": self.took_over, "keys": self.keys,
                "reraced": self.reraced}


_installed: Sharing | None = None


def current() -> Sharing | None:
    """The process's sharing hook (None unless a spread warm installed one)."""
    return _installed


@contextmanager
def installed(hook: Sharing) -> Iterator[Sharing]:
    """Every tune of the process shares through `hook` while the block runs."""
    global _installed
    previous, _installed = _installed, hook
    try:
        yield hook
    finally:
        _installed = previous
