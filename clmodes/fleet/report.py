"""What a fleet warm tells a release engineer: per target, where it ran and how it ended.

A target is one distinct fingerprint (exact, or model with `per="model"`). Its status is
`ok`, `failed: <one line>` (the workload raised there, or its bundle was rejected) or
`lost: node died` (no node with that device was left to retry on). The report is the
payload of `--json`; the text view renders exactly it.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

LOST = "lost: node died"


class Status(enum.Enum):
    OK = "ok"
    FAILED = "failed"
    LOST = "lost"
    PENDING = "pending"


@dataclasses.dataclass
class TargetReport:
    """One target: its fingerprint, the device and node that warmed it, what it did."""

    fingerprint: str
    device: str
    node: str | None = None
    status: Status = Status.PENDING
    line: str = ""
    kernels_compiled: int = 0
    keys_tuned: int = 0
    seconds: float = 0.0
    attempts: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def status_text(self) -> str:
        if self.status is Status.FAILED:
            return f"failed: {self.line}"
        if self.status is Status.LOST:
            return LOST
        return self.status.value

    def as_dict(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint, "device": self.device, "node": self.node,
                "status": self.status_text, "kernels_compiled": self.kernels_compiled,
                "keys_tuned": self.keys_tuned, "seconds": round(self.seconds, 3),
                "attempts": list(self.attempts)}


@dataclasses.dataclass
class FleetReport:
    """Every target of one fleet warm, and whether (and how completely) OUT was written."""

    workload: str
    out: str
    per: str
    targets: list[TargetReport]
    written: bool = False
    seconds: float = 0.0  # tasks submitted to bundle written (or given up)
    manifest: dict[str, Any] | None = None
    spread: bool = False
    # Per spread group: its model, leader, and per node what it measured (`driver`).
    groups: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @property
    def complete(self) -> bool:
        return bool(self.targets) and all(t.ok for t in self.targets)

    @property
    def missing(self) -> list[str]:
        return [t.fingerprint for t in self.targets if not t.ok]

    @property
    def exit_status(self) -> int:
        """0: every target produced a bundle and OUT holds them all; 3: OUT holds only
        what succeeded (`allow_partial`); 1: OUT was not written."""
        if self.complete and self.written:
            return 0
        return 3 if self.written else 1

    def as_dict(self) -> dict[str, Any]:
        return {"workload": self.workload, "out": self.out, "per": self.per,
                "complete": self.complete, "written": self.written,
                "missing": self.missing, "seconds": round(self.seconds, 3),
                "targets": [t.as_dict() for t in self.targets],
                "manifest": self.manifest, "exit_status": self.exit_status,
                "spread": self.spread, "groups": list(self.groups)}
