"""`devices()`: one discovery task pinned to each alive node, listing its OpenCL devices.

Pinned (node affinity, not "somewhere with a free CPU"): the question is what *each*
node has, and a task left to the scheduler would answer for whichever node ran it. A
node whose discovery fails (no OpenCL platform, no clmodes there) is listed with its
error and no devices; it is not a reason to refuse the fleet.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from clmodes.fleet import tasks
from clmodes.fleet.cluster import Node, alive_nodes, connected, pinned
from clmodes.fleet.errors import FleetError


@dataclasses.dataclass(frozen=True)
class NodeDevice:
    """A device as its node lists it: `index` selects it there (`CLMODES_DEVICE`)."""

    index: int
    label: str
    vendor: str
    model: str
    exact: str

    @classmethod
    def of(cls, row: dict[str, Any]) -> "NodeDevice":
        return cls(int(row["index"]), str(row["label"]), str(row["vendor"]),
                   str(row["model"]), str(row["exact"]))

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class NodeDevices:
    """One node and what its discovery task found there."""

    node: Node
    devices: tuple[NodeDevice, ...]
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**self.node.as_dict(), "devices": [d.as_dict() for d in self.devices],
                "error": self.error}


def discover(ray: Any) -> list[NodeDevices]:
    """Run the discovery task on every alive node of the connected cluster."""
    nodes = alive_nodes(ray)
    if not nodes:
        raise FleetError("the Ray cluster has no alive node")
    remote = ray.remote(num_cpus=0, max_retries=0)(tasks.discover)
    refs = [remote.options(scheduling_strategy=pinned(ray, node)).remote() for node in nodes]
    found = []
    for node, ref in zip(nodes, refs):
        try:
            listed = ray.get(ref)
        except ray.exceptions.RayError as error:
            found.append(NodeDevices(node, (), f"discovery failed: {type(error).__name__}"))
            continue
        rows = tuple(NodeDevice.of(row) for row in listed["devices"])
        found.append(NodeDevices(node, rows, listed["error"]))
    return found


def devices(address: str | None = None) -> list[NodeDevices]:
    """Every alive node of the cluster at `address` and its OpenCL devices.

    Raises `FleetError` without Ray, with no cluster there, or when no node has any
    OpenCL device (a fleet that could warm nothing)."""
    with connected(address) as ray:
        found = discover(ray)
    if not any(n.devices for n in found):
        reasons = "; ".join(f"{n.node.name}: {n.error}" for n in found if n.error)
        raise FleetError("no OpenCL device on any node of the cluster"
                         + (f" ({reasons})" if reasons else ""))
    return found


def group_by_fingerprint(found: list[NodeDevices], per: str = "exact",
                         ) -> dict[str, list[tuple[Node, NodeDevice]]]:
    """Fingerprint (exact or model) -> every (node, device) that has it, in node order."""
    groups: dict[str, list[tuple[Node, NodeDevice]]] = {}
    for entry in found:
        for device in entry.devices:
            key = device.exact if per == "exact" else device.model
            groups.setdefault(key, []).append((entry.node, device))
    return groups
