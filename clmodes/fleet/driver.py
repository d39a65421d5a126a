"""`warm("module:function", out)`: one warm per distinct fingerprint of the cluster.

The driver discovers the nodes' devices, plans one target per fingerprint, submits one
task per target pinned to a node with that device (`jobs.py`), and collects as tasks
finish (`ray.wait`, so the progress line moves and one slow device does not hold the
others' results; `settling.py` reads each result). Faults, told apart by how they arrive:

- the workload raised (or its node could not import it): the task *returns* a failure
  with the exception's last line; that target fails, the others go on;
- the node died (a Ray system error: the worker or node is gone, the task cannot be
  scheduled): retried once on another node with the same fingerprint, if there is one
  alive, else `lost: node died`;
- the bundle fails verification on the driver: that target fails with the bundle's line.

With `spread`, nodes with the same device model form groups (`spread.py`): one job per
node of a group, every tune shared through the group's ledger; a group's targets are
settled when all its jobs have ended (a member's death costs its shares' deadline, not
the target: the group is its own redundancy, so nothing is retried).

OUT is written once, at the end, only if every target succeeded, or with
`allow_partial` from what did; it is checked before anything runs (an existing OUT
needs `force`), so a refused command costs no cluster time.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from clmodes import remote
from clmodes.bundle import read as read_bundle
from clmodes.fleet import assembly
from clmodes.fleet.cluster import connected
from clmodes.remote.config import signing_key_from_environment
from clmodes.fleet.discovery import discover
from clmodes.fleet.errors import FleetError
from clmodes.fleet.jobs import Jobs
from clmodes.fleet.progress import FleetProgress
from clmodes.fleet.report import FleetReport, TargetReport
from clmodes.fleet.spread import DEFAULT_TIMEOUT_S, Group, plan_groups
from clmodes.fleet.targets import Target, plan

log = logging.getLogger("clmodes")


def warm(workload: str, out: str, address: str | None = None, per: str = "exact", *,
         allow_partial: bool = False, force: bool = False,
         runtime_env: dict[str, Any] | None = None,
         progress: TextIO | None = None, sign: str | None = None,
         spread: bool = False, spread_timeout_s: float = DEFAULT_TIMEOUT_S) -> FleetReport:
    """Warm `workload` ("module:function", importable on every node) once per distinct
    device fingerprint of the cluster at `address`; merge the bundles into `out`.

    `runtime_env` is Ray's (`{"working_dir": "."}` or `{"py_modules": [...]}` ships the
    workload's code to the nodes). Returns the report; raises `FleetError` (no Ray, no
    cluster, no device anywhere) or `BundleError` (OUT refused) before any warm runs.
    `sign`: a private key file (`clmodes bundle keygen`) to sign OUT with: a bundle with
    binaries is imported only when signed by a key the user trusts.
    `spread`: every node with the same device model shares that model's tunes, each
    measuring a share of every generation (`spread.py`); a share not posted within
    `spread_timeout_s` is measured by another node of the group."""
    if ":" not in workload:
        raise FleetError(f"expected MODULE:FUNCTION, got {workload!r}")
    assembly.check_output(out, force)
    if sign is not None and not Path(sign).is_file():
        raise FleetError(f"{sign}: no such signing key (make one with clmodes bundle keygen)")
    with connected(address, runtime_env) as ray:
        found = discover(ray)
        targets = plan(found, per)
        if not targets:
            raise FleetError("no OpenCL device on any node of the cluster")
        report = FleetReport(workload, str(out), per,
                             [TargetReport(t.fingerprint, t.device) for t in targets],
                             spread=spread)
        groups = plan_groups(found, targets, per)[0] if spread else []
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="clmodes-fleet-") as directory:
            parts = _run(ray, workload, targets, report, Path(directory), FleetProgress(progress),
                         groups, spread_timeout_s)
            _write(report, parts, allow_partial, force, sign)
        _publish(report, sign or signing_key_from_environment())
        report.seconds = time.perf_counter() - started
    return report


def _run(ray: Any, workload: str, targets: list[Target], report: FleetReport,
         directory: Path, progress: FleetProgress, groups: Sequence[Group] = (),
         spread_timeout_s: float = DEFAULT_TIMEOUT_S) -> list[Path]:
    jobs = Jobs(ray, workload, report, directory)
    grouped = {id(t) for group in groups for t in group.targets}
    entries = {id(t): e for t, e in zip(targets, report.targets)}
    for target in targets:
        if id(target) not in grouped:
            jobs.submit(target, entries[id(target)], target.places[0][0], [])
    for group in groups:
        jobs.submit_group(group, [entries[id(t)] for t in group.targets], spread_timeout_s)
    jobs.wait(progress)
    return jobs.parts


def _publish(report: FleetReport, key: str | None) -> None:
    """With a signing key and a remote configured (`clmodes.remote`), the merged bundle's
    entries are published from here, the driver: the private key never travels to the
    nodes (their warms never publish), and what is published is what OUT holds, read
    back and verified as any bundle is."""
    if key is None or not report.written:
        return
    published = remote.publish_entries(read_bundle(report.out).entries, key)
    if published is None:
        log.warning("fleet warm: a signing key is given but no remote is configured "
                    "($CLMODES_REMOTE); nothing published")


def _write(report: FleetReport, parts: list[Path], allow_partial: bool, force: bool,
           sign: str | None = None) -> None:
    if not parts or not (report.complete or allow_partial):
        return
    report.manifest = assembly.write_merged(report.out, parts, force, sign)
    report.written = True
