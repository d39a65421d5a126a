"""A finished job's result into its targets' reports: a plain task collected, a spread
group settled once its last member ended, a bundle verified or the target failed.

Apart from the jobs (`jobs.py`) because this is what a fleet warm *concludes*, and the
jobs are how it runs: how faults arrive (a returned failure, a Ray error, a rejected
bundle) is read here, what to do next (retry a lost task elsewhere) is the jobs' call.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from clmodes.bundle import BundleError
from clmodes.fleet import assembly
from clmodes.fleet.report import FleetReport, Status, TargetReport
from clmodes.fleet.spread import Group

log = logging.getLogger("clmodes")


def collect(ray: Any, ref: Any, entry: TargetReport, node_name: str, directory: Path,
            parts: list[Path], per: str) -> bool:
    """Record one finished task of a plain target into `entry`; True if it was lost (its
    node, raylet or worker died), so that the caller may retry it elsewhere."""
    try:
        result = ray.get(ref)
    except ray.exceptions.RayTaskError as error:  # the task's own code raised on the node
        fail(entry, first_line(error))
        return False
    except ray.exceptions.RayError as error:  # the node, its raylet or the worker died
        log.warning("fleet: %s on %s lost (%s)", entry.fingerprint, node_name,
                    type(error).__name__)
        return True
    entry.seconds = float(result.get("seconds", 0.0))
    if result.get("status") != "ok":
        fail(entry, str(result.get("line", "no reason given")))
        return False
    accept(entry, result, directory, parts, per)
    return False


def member_result(ray: Any, ref: Any) -> dict[str, Any]:
    """A group member's job, ended: its report, or why it has none."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        return {"status": "failed", "line": first_line(error)}
    except ray.exceptions.RayError as error:
        log.warning("fleet: a spread job was lost (%s)", type(error).__name__)
        return {"status": "lost"}


def settle(group: Group, entries: list[TargetReport], ended: dict[int, dict[str, Any]],
           directory: Path, parts: list[Path], report: FleetReport) -> None:
    """Every member has ended (`ended`: rank -> result): each target takes the bundle of
    the first member (in rank order) that has its device and succeeded; the group's line
    goes into the report."""
    for target, entry in zip(group.targets, entries):
        holders = [m for m in group.members if m.holds(target, report.per)]
        entry.status, entry.line = Status.LOST, ""
        for member in holders:
            result = ended[member.rank]
            if result.get("status") == "ok":
                if not accept(entry, result, directory, parts, report.per):
                    continue
                entry.line = ""
                entry.node, entry.device = member.node.name, member.device.label
                entry.seconds = float(result.get("seconds", 0.0))
                break
            if result.get("status") == "failed" and entry.status is Status.LOST:
                fail(entry, str(result.get("line", "no reason given")))
        entry.attempts = [entry.node] if entry.node else []
    report.groups.append(group_report(group, ended))


def group_report(group: Group, ended: dict[int, dict[str, Any]]) -> dict[str, Any]:
    nodes = []
    for member in group.members:
        result = ended[member.rank]
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
    return {"model": group.model, "leader": group.leader.node.name,
            "configs": sum(n["configs"] for n in nodes), "nodes": nodes}


def accept(entry: TargetReport, result: dict[str, Any], directory: Path, parts: list[Path],
           per: str) -> bool:
    """A job's bundle verified and kept as the next part, its counts into `entry`; or
    the target failed with the bundle's line."""
    try:
        name = f"{len(parts)}.clmodes"
        parts.append(assembly.accept(directory, name, result["bundle"], entry.fingerprint, per))
    except BundleError as error:
        fail(entry, f"bundle rejected: {error}")
        return False
    entry.status = Status.OK
    entry.kernels_compiled = int(result.get("kernels_compiled", 0))
    entry.keys_tuned = int(result.get("keys_tuned", 0))
    return True


def fail(entry: TargetReport, line: str) -> None:
    entry.status, entry.line = Status.FAILED, line


def first_line(error: BaseException) -> str:
    cause = getattr(error, "cause", None)
    shown = cause if isinstance(cause, BaseException) else error
    text = f"{type(shown).__name__}: {shown}".strip()
    return text.splitlines()[0]
