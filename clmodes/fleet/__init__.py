"""Fleet: warm one workload on every device of a Ray cluster and ship one merged bundle.

Ray is an optional extra (`pip install 'clmodes[fleet]'`): nothing here imports it until
a function connects to a cluster, so `import clmodes.fleet` works without it, and the
embedded default (one machine, no Ray) is untouched.

Modules, one concept each: `cluster` (Ray imported on demand, connecting, alive nodes),
`discovery` (one task per node listing its OpenCL devices), `targets` (which device on
which node warms for each distinct fingerprint), `tasks` (what runs on a node: a fresh
process per job), `node_warm` (that process: warm into a temporary store, export),
`assembly` (the driver's side: every bundle verified, merged, written atomically),
`report` (`FleetReport`, `TargetReport`), `progress` (the terminal line), `driver`
(`warm`: planning, running, writing OUT), `jobs` (the jobs in flight: a lost node's
task retried once elsewhere, a group's member jobs, the wait loop), `settling` (a
finished job's result into the report), `spread` (with
`spread=True`: the groups of nodes sharing one device model's tunes) and `ledger` (a
group's Ray actor, and a node job's way to it; the protocol is
`clmodes.tune.fleet.sharing`'s).
"""

from clmodes.fleet.discovery import NodeDevice, NodeDevices, devices, group_by_fingerprint
from clmodes.fleet.driver import warm
from clmodes.fleet.errors import FleetError, RAY_HINT
from clmodes.fleet.report import FleetReport, Status, TargetReport

__all__ = [
    "FleetError",
    "FleetReport",
    "NodeDevice",
    "NodeDevices",
    "RAY_HINT",
    "Status",
    "TargetReport",
    "devices",
    "group_by_fingerprint",
    "warm",
]
