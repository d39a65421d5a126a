"""The plan of a spread fleet warm (`--spread`): which nodes share which tunes.

Nodes whose devices have the same *model* fingerprint form a group: one job per node,
all warming the same workload and sharing every tune through the group's ledger
(`ledger`, `clmodes.tune.fleet.sharing`). A node counts once, with its first device of that
model (two identical devices in one node would measure on one machine's cores and
memory anyway). The leader (rank 0) is the node the plain plan chose for the group's
first target, so a spread warm starts where a plain one would; it re-races every
key's finalists. A model on one node only is no group: its targets run as a plain warm.

What ships: per target (exact fingerprint, or model with `per="model"`), the bundle
of the first member in rank order that has that device and succeeded, so identical
exact fingerprints ship one bundle (the leader's), and a group of mixed drivers ships
each driver's own binaries with the shared decisions.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from clmodes.fleet.cluster import Node
from clmodes.fleet.discovery import NodeDevice, NodeDevices
from clmodes.fleet.targets import Target

DEFAULT_TIMEOUT_S = 120.0  # a share not posted by then is measured by another node


@dataclasses.dataclass(frozen=True)
class Member:
    """One node of a group, the device it warms and its rank (0: the leader)."""

    node: Node
    device: NodeDevice
    rank: int

    def holds(self, target: Target, per: str) -> bool:
        key = self.device.exact if per == "exact" else self.device.model
        return key == target.fingerprint


@dataclasses.dataclass
class Group:
    """The nodes sharing one model's tunes, and the targets they warm."""

    model: str
    members: list[Member]
    targets: list[Target]

    @property
    def leader(self) -> Member:
        return self.members[0]

    def role(self, member: Member, ledger: str, timeout_s: float) -> dict[str, Any]:
        """What a member's job needs to join (the address is added on the node)."""
        return {"ledger": ledger, "rank": member.rank, "nodes": len(self.members),
                "node": member.node.name, "timeout_s": timeout_s}


def plan_groups(found: list[NodeDevices], targets: list[Target], per: str,
                ) -> tuple[list[Group], list[Target]]:
    """The groups (models on two nodes or more) and the targets left to a plain warm."""
    by_model: dict[str, list[tuple[Node, NodeDevice]]] = {}
    for entry in found:
        seen: set[str] = set()
        for device in entry.devices:
            if device.model not in seen:
                seen.add(device.model)
                by_model.setdefault(device.model, []).append((entry.node, device))
    groups: list[Group] = []
    plain: list[Target] = []
    claimed: set[str] = set()
    for target in targets:
        model = target.places[0][1].model
        places = by_model.get(model, [])
        if len(places) < 2:
            plain.append(target)
            continue
        if model in claimed:
            next(g for g in groups if g.model == model).targets.append(target)
            continue
        claimed.add(model)
        first = target.places[0][0]
        ordered = sorted(places, key=lambda place: place[0] != first)  # stable: node order
        members = [Member(node, device, rank) for rank, (node, device) in enumerate(ordered)]
        groups.append(Group(model, members, [target]))
    return groups, plain
