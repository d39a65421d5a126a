"""Ray, imported on demand, and the connection to a cluster.

Ray is an optional extra: it is imported here, inside functions, so that `import clmodes`
and every other command work without it; without it a fleet command is one line naming
the extra. Connecting never starts a cluster: `ray.init()` with no address starts a local
one, which would "succeed" on a laptop with no fleet at all. The address is `--address`,
else `$RAY_ADDRESS`, else the one Ray records for the latest cluster started on this
machine (`<tmp>/ray/ray_current_cluster`, what `address="auto"` reads), and it is probed
with a plain TCP connect first: Ray retries an unreachable GCS for minutes (a stale
record of a cluster long gone is enough), and a person asked for one clear line.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from clmodes.fleet.errors import RAY_HINT, FleetError

log = logging.getLogger("clmodes")
PROBE_SECONDS = 5.0


def require_ray() -> ModuleType:
    """The `ray` module, or a `FleetError` naming the extra that installs it."""
    try:
        import ray
    except ImportError as error:
        raise FleetError(f"the fleet needs Ray, which is not installed: {RAY_HINT}") from error
    return ray


@dataclasses.dataclass(frozen=True)
class Node:
    """An alive node of the cluster: Ray's id (what tasks are pinned to), its address and
    the CPUs it offers Ray (a head node is often started with none)."""

    node_id: str
    address: str
    cpus: float = 0.0

    @property
    def name(self) -> str:
        """Short enough for a table, unique enough on one machine running many nodes."""
        return f"{self.address}/{self.node_id[:8]}"

    def as_dict(self) -> dict[str, str]:
        return {"node_id": self.node_id, "address": self.address, "name": self.name}


def _recorded_address() -> str:
    record = os.path.join(tempfile.gettempdir(), "ray", "ray_current_cluster")
    try:
        with open(record, encoding="utf-8") as stream:
            address = stream.read().strip()
    except OSError:
        address = ""
    if not address:
        raise FleetError("no Ray cluster to connect to: pass --address HOST:PORT or set "
                         "$RAY_ADDRESS (no cluster was started on this machine)")
    return address


def _probe(address: str) -> None:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return  # "ray://..." or a form Ray itself will judge
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), PROBE_SECONDS):
            pass
    except OSError as error:
        raise FleetError(f"no Ray cluster at {address}: {error.strerror or error}") from error


@contextmanager
def connected(address: str | None = None,
              runtime_env: dict[str, Any] | None = None) -> Iterator[ModuleType]:
    """Connected to the cluster at `address` for the block (unless the caller already
    is, in which case its connection and runtime environment are used as they are)."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    target = address or os.environ.get("RAY_ADDRESS") or _recorded_address()
    _probe(target)
    try:
        ray.init(address=target, runtime_env=runtime_env, logging_level=logging.WARNING,
                 log_to_driver=False, configure_logging=True)
    except (ConnectionError, RuntimeError, ValueError) as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise FleetError(f"cannot connect to a Ray cluster at {target}: {first}") from error
    try:
        yield ray
    finally:
        ray.shutdown()


def alive_nodes(ray: ModuleType) -> list[Node]:
    """The nodes alive now, in a stable order (by address, then id)."""
    found = [Node(str(n["NodeID"]), str(n.get("NodeManagerAddress", "?")),
                  float(n.get("Resources", {}).get("CPU", 0.0)))
             for n in ray.nodes() if n.get("Alive")]
    return sorted(found, key=lambda n: (n.address, n.node_id))


def pinned(ray: ModuleType, node: Node) -> Any:
    """The scheduling strategy that runs a task on `node` and nowhere else: a device is a
    property of a node, so a task moved elsewhere would warm the wrong device."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=False)


def cpus_for(node: Node) -> float:
    """What a job asks of its node: one CPU (jobs on one node then run one after the
    other, not fighting over its cores), or none on a node that offers none, where a
    one-CPU task would wait forever."""
    return 1.0 if node.cpus >= 1 else 0.0
