"""Misses: a kernel built from source, or a key tuned, in a process that meant to start warm.

`clmodes check` and `CLMODES_STRICT=1` exist for CI and install scripts, which need more
than "3 compiled, 1 tuned": which kernel or key missed, and why (no entry for this device,
another driver, the kernel's identity changed, another shape, another store format). The
places that decide to build or tune (`DeviceServer.flush`, `Tunable.__call__`) report a
`Miss` here; its reason is worked out from the store only while someone listens
(`noting()`) or strictness is on, so a production process never pays for it.

Strictness applies to EXECUTE only: a compile-mode pass (`warm`) exists to compile and
tune, so a warm under `CLMODES_STRICT=1` still warms.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from clmodes import settings
from clmodes.errors import ClmodesError
from clmodes.execution.modes import ProcessMode
from clmodes.execution.overrides import process_mode
from clmodes.execution.registry import LiveRegistry

STRICT_VARIABLE = settings.STRICT.name


class MissKind(enum.Enum):
    KERNEL = "kernel"  # built from source: no usable binary in the store
    TUNE = "tune"  # tuned: no usable decision in the store


@dataclasses.dataclass(frozen=True)
class Miss:
    kind: MissKind
    name: str  # the kernel's or the tunable's name
    device: str  # the device's label
    why: str
    key: str | None = None  # a tune's key

    def line(self) -> str:
        what = f"kernel {self.name!r}" if self.kind is MissKind.KERNEL else (
            f"tunable {self.name!r} key {self.key}")
        return f"{what} on {self.device}: {self.why}"

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind.value, "name": self.name, "device": self.device,
                "key": self.key, "why": self.why}


class StrictMissError(ClmodesError):
    """`CLMODES_STRICT=1`: a kernel would be built from source, or a key tuned."""


LISTENERS: LiveRegistry[list[Miss]] = LiveRegistry()
_lock = threading.Lock()  # one report appended to every listener at a time


def strict() -> bool:
    return settings.STRICT.get() and process_mode() is ProcessMode.EXECUTE


def listening() -> bool:
    """Is a reason wanted (someone notes misses, or a miss must raise)?"""
    return bool(LISTENERS.live) or strict()


def report(miss: Callable[[], Miss]) -> None:
    """Record a miss (made only if listened for); raise `StrictMissError` when strict."""
    if not listening():
        return
    found = miss()
    with _lock:
        for listener in LISTENERS.live:
            listener.append(found)
    if strict():
        raise StrictMissError(f"{STRICT_VARIABLE}=1: {found.line()}")


def noting() -> AbstractContextManager[list[Miss]]:
    """The misses of every thread meanwhile, in order."""
    return LISTENERS.holding([])
