"""The ledger of a spread group as a Ray actor, and a node's way to it.

The driver creates one named actor per group (`create`), holding a
`clmodes.tune.fleet.sharing.MemoryLedger`: Ray runs an actor's methods one at a time, so the
first-write-wins rule holds as it does between threads. It lives in a namespace of its
own (`NAMESPACE`; a job's default namespace is anonymous, and a node's job could not
find it there), needs no CPU, and dies with the driver (not detached), so a driver that
is interrupted leaves nothing behind.

A node's job is a plain subprocess (`node_warm`, see `tasks`); it joins the cluster as a
driver of its own (`joined`: `ray.init(address)` with the address its Ray task read
from its runtime context) and calls the actor through `RemoteLedger`. Importing Ray,
connecting and finding the actor costs once per warm, not per key (measured by
`ci/bench/bench_fleet.py --spread`: the seconds a spread job spends joining); relaying
over a pipe through the Ray
task would save that but needs a relay thread and a second channel beside the job's
one-line report.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from clmodes.tune.fleet.sharing import MemoryLedger, Spread

log = logging.getLogger("clmodes")

NAMESPACE = "clmodes-fleet"


def create(ray: Any) -> tuple[str, Any]:
    """A fresh ledger actor for one group: its name and handle."""
    name = f"clmodes-spread-{uuid.uuid4().hex[:12]}"
    actor = ray.remote(num_cpus=0, max_restarts=0)(MemoryLedger)
    handle = actor.options(name=name, namespace=NAMESPACE).remote()
    ray.get(handle.posts.remote("", 0))  # created and answering before any node asks
    return name, handle


class RemoteLedger:
    """A `Ledger` whose calls go to the group's actor (one round trip each)."""

    def __init__(self, ray: Any, handle: Any) -> None:
        self._ray = ray
        self._handle = handle

    def post(self, key: str, generation: int, post: dict[str, Any]) -> dict[str, Any]:
        return self._ray.get(self._handle.post.remote(key, generation, post))

    def posts(self, key: str, generation: int) -> list[dict[str, Any]]:
        return self._ray.get(self._handle.posts.remote(key, generation))

    def decide(self, key: str, decision: dict[str, Any]) -> dict[str, Any]:
        return self._ray.get(self._handle.decide.remote(key, decision))

    def decision(self, key: str) -> dict[str, Any] | None:
        return self._ray.get(self._handle.decision.remote(key))


@contextmanager
def joined(role: dict[str, Any]) -> Iterator[tuple[Spread, float]]:
    """This job's `Spread` hook on the group's ledger, and the seconds joining took."""
    started = time.perf_counter()
    import ray

    os.environ.pop("RAY_ADDRESS", None)  # the role's address is the one to join
    ray.init(address=role["address"], logging_level=logging.WARNING, log_to_driver=False,
             configure_logging=True)
    try:
        handle = ray.get_actor(role["ledger"], namespace=NAMESPACE)
        hook = Spread(RemoteLedger(ray, handle), int(role["rank"]), int(role["nodes"]),
                      str(role["node"]), float(role["timeout_s"]))
        yield hook, time.perf_counter() - started
    finally:
        ray.shutdown()
