"""A tier behind the store: where a local miss may read through before it is a miss.

The store is the lowest layer that knows about entries, and what lies behind it (a team's
shared Redis, `clmodes.remote`) needs the layers above: signatures and trust from
`clmodes.bundle`, records from `clmodes.tune`. So the store defines only this slot and
the two questions it asks; the tier is installed from above (`clmodes.remote.configure`,
or `$CLMODES_REMOTE` through the factory `clmodes/__init__.py` registers), resolved once,
on the first miss, so that importing clmodes opens no connection.

The contract a tier keeps (the store trusts it with nothing else): it writes what it
found into the store itself (`Store.add_entries`, local entries winning) and returns; it
never raises, never blocks past its own bounded timeout, and asks each key at most once
per process, so a miss costs one remote round trip at most, and a remote that is down
costs one timeout for the whole process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

# The `Store` asking (typed loosely: naming the class here would be an import circle
# with the module that calls these).
Store = Any


class ReadThrough(Protocol):
    def binaries(self, store: Store, exact: str, kernel_keys: list[str]) -> None:
        """Copy into `store` the binaries (and kernel index rows) of these kernel keys
        that the tier holds for this exact device."""

    def tunes(self, store: Store, tunable: str, key: str, candidates: str) -> None:
        """Copy into `store` every device model's decision the tier holds for this key."""


Factory = Callable[[], "ReadThrough | None"]

_lock = threading.Lock()
_factory: Factory | None = None
_tier: ReadThrough | None = None
_resolved = False


def set_factory(factory: Factory) -> None:
    """How the tier is made when first needed (`clmodes/__init__.py`: from the environment)."""
    global _factory
    with _lock:
        _factory = factory


def install(tier: ReadThrough | None) -> None:
    """Use `tier` from now on (None: no tier), whatever the factory would make."""
    global _tier, _resolved
    with _lock:
        _tier, _resolved = tier, True


def reset() -> None:
    """Forget the installed tier: the factory decides again at the next miss."""
    global _tier, _resolved
    with _lock:
        _tier, _resolved = None, False


def current() -> ReadThrough | None:
    """The tier, made by the factory on first use; None when there is none."""
    global _tier, _resolved
    if _resolved:
        return _tier
    with _lock:
        if not _resolved:
            _tier = _factory() if _factory is not None else None
            _resolved = True
        return _tier
