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
seconds per program on PoCL). All store writes of the warm are held and committed at
the end in one transaction. A warm that succeeded then applies
`$CLMODES_CACHE_MAX_SIZE` (`cache_size`).

A workload that raises an ordinary exception in a discarding pass keeps what it
gathered. Such a pass drops launches, so a real program that checks its results
(`assert np.allclose(...)`) raises there by design; losing everything with that
exception made `warm` useless on exactly the programs users have. So the exception is
caught per pass: the second pass still runs (the queues are flushed, the keys the
workload reaches before raising again are tuned), what was gathered is persisted, and
`warm()` returns its statistics with `workload_error` (a `WorkloadFailure`: type,
message, file:line, pass) and one logged warning, instead of raising. Not caught, and
all-or-nothing as before: Ctrl-C, SIGTERM and any `BaseException` that is not an
`Exception`; a failure while persisting; clmodes' own verdicts on the code
(`ClmodesError`: a kernel that does not build, a launch that does not fit, a tune with
nothing to measure) and a pyopencl program that does not build, which the command
renders in their own lines. Each of those leaves the store exactly as it was but for
the measurements taken (the next warm resumes from them) and propagates with its own
traceback. A workload that raised before gathering anything raises `NothingWarmedError`
naming its exception.

`execute=True` runs the workload once for real instead (`EXECUTE`, every one-device
context adopted: `clmodes.running`, as `clmodes run` does), so its checks hold; what it
built is persisted when it ends, and tune decisions as they are measured. There an
exception is a real failure: it propagates, after the persisting.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sysconfig
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

import numpy
import pyopencl as cl

from clmodes import settings
from clmodes.execution import (
    ExecutionStatistics,
    ProcessMode,
    ProcessModeOverride,
    StatisticsCollector,
    StatisticsReader,
    WarmPass,
    WorkloadFailure,
)
from clmodes.errors import ClmodesError, NothingWarmedError, StoreNotPersistentError
from clmodes.running import running
from clmodes.pyopencl_hooks import outside
from clmodes.progress import TerminalProgress
from clmodes.store import Store
from clmodes.execution import usage
from clmodes import cache_size, capture, reads
from clmodes.runtime import Runtime, default_runtime
from clmodes.tune.decisions.coordination import withdraw_uncommitted

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


log = logging.getLogger("clmodes")


def _check_persistent(store: Store, allow_memory: bool) -> None:
    """A store that could not be opened where it was asked for (`fell_back`) keeps
    nothing: say so, or refuse. One asked for in memory (`set_cache_dir(None)`) is meant."""
    if not store.fell_back:
        return
    where = (f"the store at {store.location} is read-only ({store.read_only_reason})"
             if store.read_only else
             f"the store could not be opened at {store.requested} and is in memory")
    message = f"{where}: nothing warm() compiles or tunes will be kept"
    if not allow_memory:
        raise StoreNotPersistentError(
            f"{message}; fix the cache location ($CLMODES_CACHE_DIR) or allow it in memory")
    log.warning("%s", message)


def warm(workload: Callable[[], object], *, progress: TextIO | None = None,
         allow_memory: bool = True, runtime: Runtime | None = None,
         sign: str | os.PathLike[str] | Literal[False] | None = None,
         execute: bool = False) -> ExecutionStatistics:
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

    The workload's own exception in a discarding pass does not raise: what it gathered
    before is compiled, tuned as far as it got and persisted, and the result's
    `workload_error` names it (one warning is logged). `execute=True` runs the workload
    once for real instead, on the process's runtime; there its exception propagates,
    after what it built is persisted.
    """
    collector = StatisticsCollector()
    runtime = runtime or default_runtime()
    store = runtime.store
    _check_persistent(store, allow_memory)
    if execute and runtime is not default_runtime():
        raise ValueError("warm(execute=True) runs on the process's runtime (clmodes run's)")
    signing = _signing_key(sign)  # a key that does not load fails before the workload runs
    started, began = time.perf_counter(), time.time()  # began: what the cap keeps (`cache_size`)
    if execute:
        statistics = _executed(workload, collector, progress)
    else:
        statistics = _discarded(workload, runtime, collector, progress)
    if signing is not None:
        _publish(runtime, signing)
    cache_size.apply_environment_cap(store, began)  # $CLMODES_CACHE_MAX_SIZE, after the commit
    log.info("warmed %r in %.2f s: %s", workload, time.perf_counter() - started, statistics)
    return statistics


def _discarded(workload: Callable[[], object], runtime: Runtime,
               collector: StatisticsCollector, progress: TextIO | None) -> ExecutionStatistics:
    """The two discarding passes and the capture, in one deferred transaction."""
    reader = StatisticsReader(collector)
    store = runtime.store
    with _withdrawn_on_failure(runtime), \
            TerminalProgress(reader, "warm", progress) as shown, store.deferred("this warm"), \
            usage.recording() as used, capture.suspended(), reads.WATCH.one_warning(), \
            outside.watching() as elsewhere:
        shown.phase = "gathering"
        with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector), \
                runtime.tunes.noting_misses() as untuned:
            failure = attempt(workload, WarmPass.GATHERING)

        def pending() -> int:
            return sum(client.server.queued() for client in runtime.clients())

        missed = len(untuned)
        if failure is not None and not (used or missed or pending()):
            raise NothingWarmedError(f"warm({_name(workload)!r}): the workload raised "
                                     f"{failure.describe()} before launching anything "
                                     "clmodes manages: nothing gathered, nothing persisted")
        shown.found(missed, pending(), pending)
        shown.phase = "compiling and tuning"
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
            for client in runtime.clients():
                client.server.flush()
            tuning = attempt(workload, WarmPass.TUNING)  # runs even after a failure: it tunes
        failure = failure or tuning
        shown.phase = "persisting"
        capture.persist(used, [runtime])
    # Another process may have committed a different winner for a key first (the first
    # recorded wins): forget what memory holds so every later call reads the store's.
    runtime.tunes.forget()
    statistics = dataclasses.replace(reader.statistics(), outside=elsewhere.report(),
                                     workload_error=failure)
    _check_gathered(workload, statistics, bool(used) or missed > 0)
    if failure is not None:
        log.warning("warm: %s; warm(..., execute=True) runs it for real", failure_line(failure),
                    extra={FAILURE_RECORD: True})
    return statistics


def _executed(workload: Callable[[], object], collector: StatisticsCollector,
              progress: TextIO | None) -> ExecutionStatistics:
    """One real run (`clmodes.running`: contexts adopted, programs persisted at its end,
    by an exception too); the workload's exception propagates after that."""
    reader = StatisticsReader(collector)
    with TerminalProgress(reader, "warm", progress) as shown, \
            outside.watching() as elsewhere, running(collector) as session:
        shown.phase = "executing"
        workload()
    persisted = session.report.persisted if session.report is not None else 0
    statistics = dataclasses.replace(reader.statistics(), outside=elsewhere.report())
    _check_gathered(workload, statistics, persisted > 0)
    return statistics


# A log record carrying this attribute is the workload-error warning, which the command
# shows as its own line (`clmodes.cli.warm`), so it drops the record instead of saying
# it twice.
FAILURE_RECORD = "clmodes_workload_failure"

_PASSES = {
    WarmPass.GATHERING: "during the gathering pass (its launches did not run, so values it "
                        "checks are not computed)",
    WarmPass.TUNING: "during the tuning pass (its launches were dropped, so values it "
                     "checks are not computed)",
    WarmPass.EXECUTING: "while running for real",
}


def failure_line(failure: WorkloadFailure) -> str:
    """What a person reads, in one line: the error, where, in which pass, what was kept."""
    kept = ("what it built and tuned before is persisted" if failure.phase is WarmPass.EXECUTING
            else "what it gathered before is compiled, tuned as far as it got, and persisted")
    return f"the workload raised {failure.describe()} {_PASSES[failure.phase]}; {kept}"


def attempt(workload: Callable[[], object], phase: WarmPass) -> WorkloadFailure | None:
    """Run one pass of the workload; its own ordinary exception comes back as data,
    anything else propagates (see the module's docstring for which, and why)."""
    try:
        workload()
    except Exception as error:  # noqa: BLE001 - sorted just below
        if is_verdict(error):
            raise
        return failure_of(error, phase)
    return None


def is_verdict(error: Exception) -> bool:
    """clmodes' own verdicts on the code (`ClmodesError`) and a pyopencl program that does
    not build: the code cannot be warmed as written, which the command renders in lines
    of their own, so they stay all-or-nothing."""
    if isinstance(error, ClmodesError):
        return True
    return isinstance(error, cl.RuntimeError) and "BUILD_PROGRAM_FAILURE" in str(error)


def failure_of(error: BaseException, phase: WarmPass) -> WorkloadFailure:
    """`error` as a `WorkloadFailure`: its type, its message's first line, and where the
    workload raised it."""
    lines = str(error).strip().splitlines()
    message = lines[0][:300] if lines else ""
    return WorkloadFailure(type(error).__name__, message, _where(error), phase)


def _library_folders() -> tuple[str, ...]:
    """Folders whose frames are not the workload's: clmodes, pyopencl, numpy, the
    standard library (an assert in numpy.testing is reported at the workload's call)."""
    paths = sysconfig.get_paths()
    folders = {str(Path(__file__).resolve().parent), str(Path(cl.__file__).resolve().parent),
               str(Path(numpy.__file__).resolve().parent), paths["stdlib"], paths["platstdlib"]}
    return tuple(os.path.join(folder, "") for folder in folders)


def _where(error: BaseException) -> str:
    """`file:line` of the innermost frame of the workload's own code in the traceback
    (relative to the current directory when inside it); `?` if there is none."""
    frames = traceback.extract_tb(error.__traceback__)
    skipped = _library_folders()
    own = [f for f in frames if not os.path.abspath(f.filename).startswith(skipped)]
    chosen = (own or frames)[-1:]
    if not chosen:
        return "?"
    filename = os.path.abspath(chosen[0].filename)
    relative = os.path.relpath(filename)
    shown = relative if not relative.startswith(os.pardir) else filename
    return f"{shown}:{chosen[0].lineno}"


def _name(workload: object) -> str:
    return str(getattr(workload, "__name__", workload))


@contextlib.contextmanager
def _withdrawn_on_failure(runtime: Runtime) -> Iterator[None]:
    """All or nothing for every way a warm stops short: its deferred writes are dropped
    (`Store.deferred`), and the decisions it already published to waiting processes are
    withdrawn with them (`tune.decisions.coordination`), whatever stopped it (an exception in the
    workload or in persisting, Ctrl-C, the command's SIGTERM).

    And this process forgets what it believed written: the decisions its tune cache holds
    and the programs its servers took as captured. Why: a warm whose commit a full disk
    refused left them in memory, so a second warm in the same process (an install script
    that freed space and tried again) found every key decided and every program captured,
    wrote nothing, and said it had warmed. A warm in a process whose store refused any
    write before (a tune's own write, a run's capture) starts by forgetting them too."""
    if runtime.store.failures:  # a write refused before this warm: the same holds
        _forget_what_was_believed_written(runtime)
    try:
        yield
    except BaseException:
        withdraw_uncommitted(runtime.store)
        _forget_what_was_believed_written(runtime)
        raise


def _forget_what_was_believed_written(runtime: Runtime) -> None:
    runtime.tunes.forget()
    for client in runtime.clients():
        client.server.forget_captures()


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
    raise NothingWarmedError(f"warm({_name(workload)!r}): the "
                             f"workload launched nothing clmodes manages: nothing gathered, "
                             f"nothing persisted{why}")


def _signing_key(sign: str | os.PathLike[str] | Literal[False] | None) -> "Ed25519PrivateKey | None":
    # Read from settings, not from the remote: a warm that publishes nothing (most) never
    # loads the remote, nor the bundle code it builds on.
    key = settings.SIGNING_KEY.get() if sign is None else sign
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
