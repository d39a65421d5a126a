"""`clmodes.prune(max_size)` and `$CLMODES_CACHE_MAX_SIZE`: a local store that stays small.

The store only grows: every warm adds binaries and decisions, and nothing old goes unless
someone clears it all. A cap evicts what is cheapest to recompute first, binaries before
measurements before decisions, least recently used first within each
(`clmodes.store.pruning`, which says why, what goes together and what is kept).

`$CLMODES_CACHE_MAX_SIZE` applies the cap after each successful `warm()`, once its own
entries are committed, and never evicts what that warm made or used (`pruning.Warmed`):
a cap smaller than one workload's own entries keeps them all, over the cap, and says so in
one warning naming the cap and what the workload needs (evicting them would undo the warm:
the next run would build and tune again). It compacts the file only once a quarter of it
is free (`pruning.AUTO_COMPACT_AT`), not after every warm. A value that is not a size is one warning naming the
variable and no prune: the warm has done its work, and a typo in a cap must not undo it
or fail it. `clmodes fleet warm`'s nodes warm into fresh stores that are exported whole,
so the variable is not passed to them (`fleet.tasks`); the fleet's driver writes a
bundle, not a local store, so there is nothing there to cap.
"""

from __future__ import annotations

import logging

from clmodes import settings
from clmodes.runtime import default_store
from clmodes.store import Store
from clmodes.store import pruning
from clmodes.store.pruning import AUTO_COMPACT_AT, PruneReport
from clmodes.sizes import SizeError, parse_size, shown

log = logging.getLogger("clmodes")

MAX_SIZE_ENV = settings.CACHE_MAX_SIZE.name


def prune(max_size: int | str, store: Store | None = None) -> PruneReport:
    """Evict entries of `store` (default: the process's), binaries first and least
    recently used first (`pruning`), until they take at most `max_size` bytes (an int, or a size like `"500MB"`); compact the
    file. `SizeError` (a `ValueError`) for a size that is not one."""
    if isinstance(max_size, str):
        max_size = parse_size(max_size)
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 0:
        raise SizeError(f"{max_size!r} is not a size (a number of bytes, 0 or more)")
    return (store or default_store()).prune(max_size)


def environment_cap() -> int | None:
    """The cap `$CLMODES_CACHE_MAX_SIZE` sets, or None (unset, empty, or not a size: then
    one warning naming the variable)."""
    try:
        return settings.CACHE_MAX_SIZE.get()
    except settings.SettingError as error:
        log.warning("%s; the store is not pruned", error)
        return None


def apply_environment_cap(store: Store, warm_began: float | None = None) -> PruneReport | None:
    """Prune `store` to `$CLMODES_CACHE_MAX_SIZE` if it is set, keeping what the warm that
    began at `warm_began` (a POSIX time) made or used; one log line when something was
    evicted or the warm's own entries alone exceed the cap. Never raises: a failed prune
    is a warning, the caller's work stands."""
    cap = environment_cap()
    if cap is None or store.read_only:
        return None
    try:
        report = pruning.prune(store, store.uses, cap, AUTO_COMPACT_AT, warm_began)
    except Exception as error:  # noqa: BLE001 - bookkeeping after the warm's success
        log.warning("$%s: could not prune the store at %s (%s)", MAX_SIZE_ENV,
                    store.location, error)
        return None
    evicted = report.evicted
    what = (f"evicted {evicted['binaries']} binaries, {evicted['tune_results']} tune results "
            f"and {evicted['measurements']} measurements ({report.evicted_bytes} bytes) "
            f"from {store.location}; {report.bytes_after} bytes left")
    if report.over_cap and report.warmed_bytes > cap:
        log.warning("$%s=%s is smaller than what this warm's workload needs (%s in %d "
                    "entries): kept them, the store is over the cap; %s", MAX_SIZE_ENV,
                    shown(cap), shown(report.warmed_bytes), report.warmed, what)
    elif report.evicted_bytes or any(evicted.values()):
        log.info("$%s=%s: %s", MAX_SIZE_ENV, shown(cap), what)
    return report
