"""`warm("module:function", out)`: one warm per distinct fingerprint of the cluster.

The driver discovers the nodes' devices, plans one target per fingerprint, submits one
task per target pinned to a node with that device, and collects as tasks finish
(`ray.wait`, so the progress line moves and one slow device does not hold the others'
results). Faults, told apart by how they arrive:

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

import dataclasses
import logging
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from clmodes import remote
from clmodes.bundle import BundleError
from clmodes.bundle import read as read_bundle
from clmodes.remote.config import signing_key_from_environment
from clmodes.fleet import assembly, ledger, tasks
from clmodes.fleet.cluster import Node, alive_nodes, connected, cpus_for, pinned
from clmodes.fleet.discovery import discover
from clmodes.fleet.errors import FleetError
from clmodes.fleet.progress import TICK, FleetProgress
from clmodes.fleet.report import FleetReport, Status, TargetReport
from clmodes.fleet.spread import DEFAULT_TIMEOUT_S, Group, Member, plan_groups
from clmodes.fleet.targets import Target, plan

log = logging.getLogger("clmodes")
RETRIES = 1  # a lost task runs again once, on another node with the same device


@dataclasses.dataclass
class _Attempt:
    """One target's task on one node (not spread): retried once elsewhere if lost."""

    target: Target
    report: TargetReport
    node: Node
    tried: list[str]

    def end(self, jobs: _Jobs, ref: Any) -> None:
        retry = _collect(jobs.ray, ref, self, jobs.directory, jobs.parts, jobs.report.per)
        if retry is not None:
            jobs.submit(self.target, self.report, retry, self.tried)


@dataclasses.dataclass
class _GroupRun:
    """A spread group in flight: its ledger and each member's outcome as it ends."""

    group: Group
    entries: list[TargetReport]
    handle: Any
    ended: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)  # rank -> result

    @property
    def done(self) -> bool:
        return len(self.ended) == len(self.group.members)


@dataclasses.dataclass
class _MemberJob:
    """One member's job of a spread group: nothing is retried (the group is its own
    redundancy); the group settles when its last member ends."""

    run: _GroupRun
    member: Member

    def end(self, jobs: _Jobs, ref: Any) -> None:
        self.run.ended[self.member.rank] = _member_result(jobs.ray, ref)
        if self.run.done:
            _settle(self.run, jobs.directory, jobs.parts, jobs.report)


@dataclasses.dataclass
class _Jobs:
    """The jobs in flight, by Ray object ref, and what their ends write into: each kind
    of job ends itself (`end`), so the wait loop has no kinds to tell apart."""

    ray: Any
    workload: str
    report: FleetReport
    directory: Path
    remote: Any = dataclasses.field(init=False)
    pending: dict[Any, _Attempt | _MemberJob] = dataclasses.field(default_factory=dict)
    runs: list[_GroupRun] = dataclasses.field(default_factory=list)
    parts: list[Path] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        self.remote = self.ray.remote(max_retries=0)(tasks.warm_target)

    def _start(self, node: Node, *args: Any) -> Any:
        return self.remote.options(scheduling_strategy=pinned(self.ray, node),
                                   num_cpus=cpus_for(node)).remote(self.workload, *args)

    def submit(self, target: Target, entry: TargetReport, node: Node, tried: list[str]) -> None:
        device = next(d for n, d in target.places if n == node)
        ref = self._start(node, device.index)
        entry.node, entry.device = node.name, device.label
        entry.attempts.append(node.name)
        self.pending[ref] = _Attempt(target, entry, node, tried + [node.node_id])

    def submit_group(self, group: Group, entries: list[TargetReport], timeout_s: float) -> None:
        name, handle = ledger.create(self.ray)
        run = _GroupRun(group, entries, handle)
        self.runs.append(run)
        for entry in entries:
            entry.node = group.leader.node.name
        for member in group.members:
            role = group.role(member, name, timeout_s)
            self.pending[self._start(member.node, member.device.index, role)] = _MemberJob(run, member)

    def wait(self, progress: FleetProgress) -> None:
        """Until every job has ended; on an interrupt, nothing is left running."""
        try:
            while self.pending:
                ready, _ = self.ray.wait(list(self.pending), num_returns=1, timeout=TICK)
                progress.draw(self.report.targets)
                for ref in ready:
                    self.pending.pop(ref).end(self, ref)
        finally:
            for ref in self.pending:
                self.ray.cancel(ref, force=True)
            for run in self.runs:
                self.ray.kill(run.handle)
            progress.close()


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
    jobs = _Jobs(ray, workload, report, directory)
    grouped = {id(t) for group in groups for t in group.targets}
    entries = {id(t): e for t, e in zip(targets, report.targets)}
    for target in targets:
        if id(target) not in grouped:
            jobs.submit(target, entries[id(target)], target.places[0][0], [])
    for group in groups:
        jobs.submit_group(group, [entries[id(t)] for t in group.targets], spread_timeout_s)
    jobs.wait(progress)
    return jobs.parts


def _member_result(ray: Any, ref: Any) -> dict[str, Any]:
    """A group member's job, ended: its report, or why it has none."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        return {"status": "failed", "line": _first_line(error)}
    except ray.exceptions.RayError as error:
        log.warning("fleet: a spread job was lost (%s)", type(error).__name__)
        return {"status": "lost"}


def _settle(run: _GroupRun, directory: Path, parts: list[Path], report: FleetReport) -> None:
    """Every member has ended: each target takes the bundle of the first member (in rank
    order) that has its device and succeeded; the group's line goes into the report."""
    group = run.group
    for target, entry in zip(group.targets, run.entries):
        holders = [m for m in group.members if m.holds(target, report.per)]
        entry.status, entry.line = Status.LOST, ""
        for member in holders:
            result = run.ended[member.rank]
            if result.get("status") == "ok":
                if not _accept(entry, result, directory, parts, report.per):
                    continue
                entry.line = ""
                entry.node, entry.device = member.node.name, member.device.label
                entry.seconds = float(result.get("seconds", 0.0))
                break
            if result.get("status") == "failed" and entry.status is Status.LOST:
                _fail(entry, str(result.get("line", "no reason given")))
        entry.attempts = [entry.node] if entry.node else []
    report.groups.append(_group_report(run))


def _group_report(run: _GroupRun) -> dict[str, Any]:
    nodes = []
    for member in run.group.members:
        result = run.ended[member.rank]
        shared = result.get("spread") or {}
        status = result.get("status", "lost")
        nodes.append({"node": member.node.name, "rank": member.rank,
                      "device": member.device.label,
                      "status": (f"failed: {result.get('line', '')}" if status == "failed"
                                 else "lost: node died" if status == "lost" else status),
                      "configs": int(shared.get("configs", 0)),
                      "took_over": int(shared.get("took_over", 0)),
                      "reraced": int(shared.get("reraced", 0)),
                      "keys": int(shared.get("keys", 0)),
                      "join_s": float(shared.get("join_s", 0.0)),
                      "seconds": round(float(result.get("seconds", 0.0)), 3)})
    return {"model": run.group.model, "leader": run.group.leader.node.name,
            "configs": sum(n["configs"] for n in nodes), "nodes": nodes}


def _collect(ray: Any, ref: Any, attempt: _Attempt, directory: Path, parts: list[Path],
             per: str) -> Node | None:
    """Record one finished task; the node to retry it on, if it was lost and may be."""
    entry = attempt.report
    try:
        result = ray.get(ref)
    except ray.exceptions.RayTaskError as error:  # the task's own code raised on the node
        _fail(entry, _first_line(error))
        return None
    except ray.exceptions.RayError as error:  # the node, its raylet or the worker died
        log.warning("fleet: %s on %s lost (%s)", entry.fingerprint, attempt.node.name,
                    type(error).__name__)
        retry = _retry_node(ray, attempt)
        if retry is None:
            entry.status = Status.LOST
        return retry
    entry.seconds = float(result.get("seconds", 0.0))
    if result.get("status") != "ok":
        _fail(entry, str(result.get("line", "no reason given")))
        return None
    _accept(entry, result, directory, parts, per)
    return None


def _accept(entry: TargetReport, result: dict[str, Any], directory: Path, parts: list[Path],
            per: str) -> bool:
    """A job's bundle verified and kept as the next part, its counts into `entry`; or
    the target failed with the bundle's line."""
    try:
        name = f"{len(parts)}.clmodes"
        parts.append(assembly.accept(directory, name, result["bundle"], entry.fingerprint, per))
    except BundleError as error:
        _fail(entry, f"bundle rejected: {error}")
        return False
    entry.status = Status.OK
    entry.kernels_compiled = int(result.get("kernels_compiled", 0))
    entry.keys_tuned = int(result.get("keys_tuned", 0))
    return True


def _retry_node(ray: Any, attempt: _Attempt) -> Node | None:
    if len(attempt.tried) > RETRIES:
        return None
    alive = {node.node_id for node in alive_nodes(ray)}
    for node, _ in attempt.target.places:
        if node.node_id not in attempt.tried and node.node_id in alive:
            return node
    return None


def _fail(entry: TargetReport, line: str) -> None:
    entry.status, entry.line = Status.FAILED, line


def _first_line(error: BaseException) -> str:
    cause = getattr(error, "cause", None)
    shown = cause if isinstance(cause, BaseException) else error
    text = f"{type(shown).__name__}: {shown}".strip()
    return text.splitlines()[0]


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
