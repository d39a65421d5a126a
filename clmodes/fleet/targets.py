"""The plan of a fleet warm: one target per distinct fingerprint, and where it runs.

`exact` (the default) makes one target per exact fingerprint, because program binaries
are valid for one device and driver only; `model` makes one per model fingerprint, for
when only tune results are wanted (the bundle then holds one driver's binaries, which
other drivers of the model ignore on import). A target runs first on the node with the
fewest targets planned so far, so a fleet's work spreads over its nodes; the rest of the
nodes with its device are where a lost task is retried.
"""

from __future__ import annotations

import dataclasses

from clmodes.fleet.cluster import Node
from clmodes.fleet.discovery import NodeDevice, NodeDevices, group_by_fingerprint
from clmodes.fleet.errors import FleetError

PER = ("exact", "model")


@dataclasses.dataclass
class Target:
    """A fingerprint to warm, and every (node, device) that can warm it, first choice
    first."""

    fingerprint: str
    places: list[tuple[Node, NodeDevice]]

    @property
    def device(self) -> str:
        return self.places[0][1].label


def plan(found: list[NodeDevices], per: str = "exact") -> list[Target]:
    """One target per distinct fingerprint, sorted by fingerprint, each with its places
    ordered least-loaded node first."""
    if per not in PER:
        raise FleetError(f"--per must be one of {', '.join(PER)}, got {per!r}")
    load: dict[str, int] = {}
    targets = []
    for fingerprint, places in sorted(group_by_fingerprint(found, per).items()):
        ordered = sorted(places, key=lambda place: load.get(place[0].node_id, 0))
        load[ordered[0][0].node_id] = load.get(ordered[0][0].node_id, 0) + 1
        targets.append(Target(fingerprint, ordered))
    return targets
