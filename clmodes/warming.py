"""`clmodes.warm(workload)`: compile, tune and persist everything a workload needs.

Two passes over the workload's own code, so that what gets warmed is exactly what the
workload launches (no separate list of kernels to keep in sync):

1. `COMPILE_ONLY`: every launch queues its kernel, every untuned key queues all its
   candidates' kernels; nothing builds, nothing runs.
2. `COMPILE_AND_AUTOTUNE`: the queues are flushed first (one batch build per device and
   set of options), then the workload runs again: tunes measure, launches are dropped.

Whatever ran outside clmodes meanwhile (pyopencl programs on a context clmodes does not
manage) is counted and named in the statistics (`outside`) and in a warning; a warm that
gathered nothing at all raises `NothingWarmedError` (the CLI: one line, exit 2).

With a signing key (`sign=`, else `$CLMODES_SIGNING_KEY`) and a remote configured
(`clmodes.remote`), what the warm's devices hold is published to the remote once it is
committed: a team's next machine reads it through instead of compiling and tuning.

Then every program holding a kernel the workload launched is captured into the store
(only those: a long-lived process holds many programs, and capturing a binary costs
seconds per program on PoCL). All store writes of the warm are
held and committed at the end in one transaction: a workload that raises (or a warm
stopped by Ctrl-C, SIGTERM or a failure while persisting) leaves the store exactly as it
was but for the measurements taken (the next warm resumes from them), and its exception
propagates with its own traceback. A warm that
succeeded then applies `$CLMODES_CACHE_MAX_SIZE` (`cache_size`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Literal, TextIO


from clmodes.execution import (
    ExecutionStatistics,
    ProcessMode,
    ProcessModeOverride,
    StatisticsCollector,
    StatisticsReader,
)
from clmodes.errors import NothingWarmedError, StoreNotPersistentError
from clmodes.pyopencl_hooks import outside
from clmodes.progress import TerminalProgress
from clmodes.store import Store
from clmodes.execution import usage
from clmodes import cache_size, capture, reads
from clmodes.runtime import Runtime, default_runtime
from clmodes.tune.coordination import withdraw_uncommitted

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

# `clmodes.remote.config.SIGNING_KEY_ENV`, read here without importing the remote: a warm
# that publishes nothing (most) never loads it, nor the bundle code it builds on.
SIGNING_KEY_ENV = "CLMODES_SIGNING_KEY"

log = logging.getLogger("clmodes")


def _check_persistent(store: Store, allow_memory: bool) -> None:
    """A store that could not be opened where it was asked for (`fell_back`) keeps
    nothing: say so, or refuse. One asked for in memory (`set_cache_dir(None)`) is meant."""
    if not store.fell_back:
        return
    message = (f"the store could not be opened at {store.requested} and is in memory: "
               "nothing warm() compiles or tunes will be kept")
    if not allow_memory:
        raise StoreNotPersistentError(
            f"{message}; fix the cache location ($CLMODES_CACHE_DIR) or allow it in memory")
    log.warning("%s", message)


def warm(workload: Callable[[], object], *, progress: TextIO | None = None,
         allow_memory: bool = True, runtime: Runtime | None = None,
         sign: str | os.PathLike[str] | Literal[False] | None = None) -> ExecutionStatistics:
    """Warm `workload` (a zero-argument callable); return what it compiled and tuned.

    `runtime`: whose store, tune cache and clients it warms (default: the process's, the
    one `clmodes.client()` serves; a workload warmed into another runtime must launch on
    that runtime's streams).

    Progress is drawn on `progress` (default: standard error) only if it is a terminal.
    A store that fell back to memory keeps nothing past this process: with
    `allow_memory=False` that raises `StoreNotPersistentError` before the workload runs
    (the CLI's default: a build machine must not ship an empty bundle after a "success").
    Kernels that ran outside clmodes are in the result's `outside` (and a warning); a
    workload that launched nothing clmodes manages raises `NothingWarmedError`.
    """
    collector = StatisticsCollector()
    reader = StatisticsReader(collector)
    runtime = runtime or default_runtime()
    store = runtime.store
    _check_persistent(store, allow_memory)
    signing = _signing_key(sign)  # a key that does not load fails before the workload runs
    started, began = time.perf_counter(), time.time()  # began: what the cap keeps (`cache_size`)
    with _withdrawn_on_failure(store), \
            TerminalProgress(reader, "warm", progress) as shown, store.deferred(), \
            usage.recording() as used, capture.suspended(), reads.WATCH.one_warning(), \
            outside.watching() as elsewhere:
        shown.phase = "gathering"
        with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector), \
                runtime.tunes.noting_misses() as untuned:
            workload()

        def pending() -> int:
            return sum(client.server.queued() for client in runtime.clients())

        missed = len(untuned)
        shown.found(missed, pending(), pending)
        shown.phase = "compiling and tuning"
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
            for client in runtime.clients():
                client.server.flush()
            workload()
        shown.phase = "persisting"
        capture.persist(used, [runtime])
    # Another process may have committed a different winner for a key first (the first
    # recorded wins): forget what memory holds so every later call reads the store's.
    runtime.tunes.forget()
    statistics = dataclasses.replace(reader.statistics(), outside=elsewhere.report())
    _check_gathered(workload, statistics, bool(used) or missed > 0)
    if signing is not None:
        _publish(runtime, signing)
    cache_size.apply_environment_cap(store, began)  # $CLMODES_CACHE_MAX_SIZE, after the commit
    log.info("warmed %r in %.2f s: %s", workload, time.perf_counter() - started, statistics)
    return statistics


@contextlib.contextmanager
def _withdrawn_on_failure(store: Store) -> Iterator[None]:
    """All or nothing for every way a warm stops short: its deferred writes are dropped
    (`Store.deferred`), and the decisions it already published to waiting processes are
    withdrawn with them (`tune.coordination`), whatever stopped it (an exception in the
    workload or in persisting, Ctrl-C, the command's SIGTERM)."""
    try:
        yield
    except BaseException:
        withdraw_uncommitted(store)
        raise


def _check_gathered(workload: object, statistics: ExecutionStatistics, gathered: bool) -> None:
    """Say what ran outside clmodes; refuse a warm that gathered nothing at all.

    Why raise rather than return empty statistics: "0 compiled, 0 loaded, 0 keys" read
    as success, and a build machine shipped an empty bundle while every kernel of the
    workload compiled again in production (pyopencl code on its own context)."""
    found = statistics.outside
    if found.kernels:
        log.warning("warm: %s", outside.summary(found))
    if gathered or statistics.compilation.kernels or statistics.autotune.keys:
        return
    why = f"; {outside.summary(found)}" if found.kernels else ""
    raise NothingWarmedError(f"warm({getattr(workload, '__name__', workload)!r}): the "
                             f"workload launched nothing clmodes manages: nothing gathered, "
                             f"nothing persisted{why}")


def _signing_key(sign: str | os.PathLike[str] | Literal[False] | None) -> "Ed25519PrivateKey | None":
    key = os.environ.get(SIGNING_KEY_ENV, "").strip() if sign is None else sign
    if not key:
        return None
    from clmodes.remote.publishing import private_key

    return private_key(key)


def _publish(runtime: Runtime, key: "Ed25519PrivateKey") -> None:
    """Publish the warmed devices' entries when a remote is configured."""
    from clmodes import remote

    exacts = {client.device.fingerprint.exact for client in runtime.clients()}
    published = remote.publish_devices(runtime.store, exacts, key)
    if published is None:
        log.warning("warm: a signing key is given but no remote is configured "
                    "($CLMODES_REMOTE); nothing published")
