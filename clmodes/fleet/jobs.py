"""The jobs of a fleet warm in flight: a plain target's task (retried once on another
node with its device if lost), a spread group's member jobs (never retried: the group is
its own redundancy), and the wait loop that ends each as Ray returns it.

Each kind of job ends itself (`end`), so the wait loop has no kinds to tell apart; what
a result means for the report is `settling.py`'s.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from clmodes.fleet import ledger, settling, tasks
from clmodes.fleet.cluster import Node, alive_nodes, cpus_for, pinned
from clmodes.fleet.progress import TICK, FleetProgress
from clmodes.fleet.report import FleetReport, Status, TargetReport
from clmodes.fleet.spread import Group, Member
from clmodes.fleet.targets import Target

RETRIES = 1  # a lost task runs again once, on another node with the same device


@dataclasses.dataclass
class Attempt:
    """One target's task on one node (not spread): retried once elsewhere if lost."""

    target: Target
    report: TargetReport
    node: Node
    tried: list[str]

    def end(self, jobs: Jobs, ref: Any) -> None:
        if not settling.collect(jobs.ray, ref, self.report, self.node.name, jobs.directory,
                                jobs.parts, jobs.report.per):
            return
        retry = self.retry_node(jobs.ray)
        if retry is None:
            self.report.status = Status.LOST
        else:
            jobs.submit(self.target, self.report, retry, self.tried)

    def retry_node(self, ray: Any) -> Node | None:
        """Another alive node with the target's device, while retries remain."""
        if len(self.tried) > RETRIES:
            return None
        alive = {node.node_id for node in alive_nodes(ray)}
        for node, _ in self.target.places:
            if node.node_id not in self.tried and node.node_id in alive:
                return node
        return None


@dataclasses.dataclass
class GroupRun:
    """A spread group in flight: its ledger and each member's outcome as it ends."""

    group: Group
    entries: list[TargetReport]
    handle: Any
    ended: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)  # rank -> result

    @property
    def done(self) -> bool:
        return len(self.ended) == len(self.group.members)


@dataclasses.dataclass
class MemberJob:
    """One member's job of a spread group: the group settles when its last member ends."""

    run: GroupRun
    member: Member

    def end(self, jobs: Jobs, ref: Any) -> None:
        self.run.ended[self.member.rank] = settling.member_result(jobs.ray, ref)
        if self.run.done:
            settling.settle(self.run.group, self.run.entries, self.run.ended, jobs.directory,
                            jobs.parts, jobs.report)


@dataclasses.dataclass
class Jobs:
    """The jobs in flight, by Ray object ref, and what their ends write into."""

    ray: Any
    workload: str
    report: FleetReport
    directory: Path
    remote: Any = dataclasses.field(init=False)
    pending: dict[Any, Attempt | MemberJob] = dataclasses.field(default_factory=dict)
    runs: list[GroupRun] = dataclasses.field(default_factory=list)
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
        self.pending[ref] = Attempt(target, entry, node, tried + [node.node_id])

    def submit_group(self, group: Group, entries: list[TargetReport], timeout_s: float) -> None:
        name, handle = ledger.create(self.ray)
        run = GroupRun(group, entries, handle)
        self.runs.append(run)
        for entry in entries:
            entry.node = group.leader.node.name
        for member in group.members:
            role = group.role(member, name, timeout_s)
            self.pending[self._start(member.node, member.device.index, role)] = MemberJob(run, member)

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
