"""User errors: what the command tells a person in one line, never in a traceback.

A user error is anything the person at the terminal can fix (no device, an unknown
module or function, a bad argument): the library raises `ClmodesError` for those, the
command adds `UsageError` for its own. Either ends the command with one line on standard
error and exit status 2, the same status argparse uses for a usage mistake, so scripts
see one "you asked for something wrong" code. Any other exception is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator

import pyopencl

from clmodes.errors import ClmodesError, KernelBuildError, StoreWriteError
from clmodes.runtime import default_runtime
from clmodes.store import Store

log = logging.getLogger("clmodes")

USER_ERROR = 2  # argparse's own status for a usage mistake
NOT_SAVED = 4  # the store refused what the command was to keep (docs/contract.md's table)
_PARTLY = 3  # warm: the workload raised, what it gathered is kept (and here it is not)
LOG_LINES = 12  # of a build log, shown under a build error's line


class UsageError(ClmodesError):
    """A mistake on the command line that argparse cannot see (`warm tunables`)."""


def refuse_read_only(store: Store, nothing: str) -> None:
    """A command whose point is changing the store file refuses one that is read-only:
    its change would go to this process's copy in memory and vanish with it."""
    if store.read_only:
        raise UsageError(f"the store at {store.location} is read-only "
                         f"({store.read_only_reason}): {nothing}")


def refuse_not_kept(store: Store, nothing: str, allow_memory: bool) -> None:
    """A command whose point is filling the store refuses one that cannot keep it, as
    `warm` does: a directory that fell back to memory, or a read-only store (its writes
    go to this process's copy and vanish with it), unless `--allow-memory` says so."""
    if not store.fell_back:
        return
    where = (f"the store at {store.location} is read-only ({store.read_only_reason})"
             if store.read_only else
             f"the store could not be opened at {store.requested} and is in memory")
    if allow_memory:
        log.warning("%s: nothing will be kept past this command", where)
        return
    raise UsageError(f"{where}: {nothing}; fix the cache location ($CLMODES_CACHE_DIR) "
                     "or allow it in memory (--allow-memory)")


def one_line(error: ClmodesError) -> str:
    """The message a person reads: the error's first line, named as the command's.
    Library messages may carry detail on later lines (a build log); the log has it."""
    lines = str(error).splitlines()
    return f"clmodes: {lines[0] if lines else type(error).__name__}"


def build_error_text(error: KernelBuildError) -> str:
    """A build error's line, then the compiler's first lines (its message is the point;
    a bare "failed to build on ...:" told a person nothing) and how many more there are."""
    lines = [line for line in error.build_log.strip().splitlines() if line.strip()]
    shown = [f"  {line}" for line in lines[:LOG_LINES]]
    if len(lines) > LOG_LINES:
        shown.append(f"  ... {len(lines) - LOG_LINES} more lines of the build log (the "
                     "`clmodes` logger at DEBUG, or KernelBuildError.build_log, has them all)")
    head = f"clmodes: kernel {error.kernel_name!r} failed to build on {error.device}:"
    return "\n".join([head, *(shown or ["  (the compiler wrote no log)"])])


def pyopencl_build_error_text(error: Exception) -> str:
    """A pyopencl program of the workload that failed to build (pyopencl's own error,
    raised through the build hook): one line with the device and the compiler's first
    error, where a traceback of 38 lines ended in pyopencl's three-times-repeated
    "clBuildProgram failed"."""
    text = str(error)
    device = re.search(r"<pyopencl\.Device '([^']*)' on '([^']*)'", text)
    where = f" on {device.group(2)} / {device.group(1).strip()}" if device else ""
    errors = [line.strip() for line in text.splitlines() if re.search(r"\berror\b", line)]
    first = errors[0] if errors else "the compiler wrote no error line"
    more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
    return f"clmodes: a pyopencl program of the workload failed to build{where}: {first}{more}"


def _saved(status: int) -> int:
    """The verb's status, unless the store refused a write of what it reports: then one
    line (the first failure, and how many more) and `NOT_SAVED`. A program's own failure
    (`run`) keeps its status; the line is said all the same."""
    store = default_runtime().opened_store
    failures = store.failures if store is not None else ()
    if not failures:
        return status
    more = f" (and {len(failures) - 1} more writes failed)" if len(failures) > 1 else ""
    print(f"clmodes: {failures[0]}{more}", file=sys.stderr)
    return NOT_SAVED if status in (0, _PARTLY) else status


class Terminated(BaseException):
    """SIGTERM, raised where the command was (`terminated_raises`), so that it unwinds
    like Ctrl-C: deferred writes dropped, published decisions withdrawn, one line."""


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While the block runs, Ctrl-C raises `KeyboardInterrupt` and SIGTERM `Terminated`
    in the main thread, so that the verb unwinds (not an instant death: that skips the
    unwinding that keeps the store all-or-nothing, and the one line that says so); the
    handlers before it are put back after: the `clmodes` script's (`clmodes_start`: one
    line and 128 + the signal at once, for the command's start and end), or a program's
    own (`main()` also runs inside other programs, the tests among them)."""
    def raise_terminated(signum: int, frame: object) -> None:
        raise Terminated()

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before_term = signal.signal(signal.SIGTERM, raise_terminated)
    before_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before_int)
        signal.signal(signal.SIGTERM, before_term)


INTERRUPTED = ("the store holds what was committed before it and nothing half-written "
               "(measurements already taken are kept: the next warm resumes from them)")


def run_verb(verb: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run `verb`; turn a user error into its one line on standard error and status 2,
    an interrupt into one line and 128 + the signal (130 for Ctrl-C, 143 for SIGTERM)."""
    with said_when_interrupted() as stopped:
        return _run_interruptible(verb, args)
    return stopped.status


@dataclasses.dataclass
class Stopped:
    """How an interrupted block ended: 128 + the signal (0: it was not interrupted)."""

    status: int = 0


@contextlib.contextmanager
def said_when_interrupted() -> Iterator[Stopped]:
    """Ctrl-C or SIGTERM inside the block: its one line on standard error, and the
    status 128 + the signal in the `Stopped` it yields."""
    stopped = Stopped()
    try:
        yield stopped
    except KeyboardInterrupt:
        print(f"clmodes: interrupted (Ctrl-C); {INTERRUPTED}", file=sys.stderr)
        stopped.status = 128 + signal.SIGINT
    except Terminated:
        print(f"clmodes: terminated (SIGTERM); {INTERRUPTED}", file=sys.stderr)
        stopped.status = 128 + signal.SIGTERM


def _run_interruptible(verb: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return _saved(verb(args))
    except StoreWriteError as error:
        print(one_line(error), file=sys.stderr)
        return NOT_SAVED
    except KernelBuildError as error:
        print(build_error_text(error), file=sys.stderr)
        return USER_ERROR
    except pyopencl.RuntimeError as error:
        if "BUILD_PROGRAM_FAILURE" not in str(error):
            raise
        print(pyopencl_build_error_text(error), file=sys.stderr)
        return USER_ERROR
    except ClmodesError as error:
        print(one_line(error), file=sys.stderr)
        return USER_ERROR
