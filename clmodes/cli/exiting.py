"""How the command's process ends: everything Python does at exit that matters, then
`os._exit`, without tearing down the OpenCL runtimes.

The trap: the ICD loader loads every registered runtime into the process at the first
OpenCL call (on a CI machine PyPI's PoCL with LLVM 14, Debian's with LLVM 15, Intel's
and Oclgrind, each with an LLVM of its own), and their libraries' destructors run at C
exit, after the interpreter's finalization has released pyopencl's objects in whatever
order the garbage collector meets them. One `clmodes check --json` in CI printed its
whole, correct report and then died of SIGSEGV (exit -11) with nothing on standard
error: after all of Python's work, so in that teardown. A script reads the exit status,
and the status must be the one the command decided.

So the command finishes what a normal exit would do that anyone could rely on: it waits
for non-daemon threads (a user's workload may have started some), runs the `atexit`
handlers (the store's last uses are written by one, a user's own may be there too),
flushes the standard streams, and then leaves with `os._exit(status)`, which skips the
finalization and the runtimes' destructors: nothing they do outlives the process.

Only the command does this, never the library: how a process ends is the application's
decision, and a user's program that imports clmodes exits as it likes. `main()` itself
returns its status (the tests call it in-process); `run()` is the entry point.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading


def exit_now(status: int) -> None:
    """End the process with `status` after threads, `atexit` handlers and the standard
    streams are done, skipping the interpreter's and the runtimes' teardown."""
    _join_threads()
    # `_run_exitfuncs` is the interpreter's own "run the handlers now" (multiprocessing's
    # children call it before their own `os._exit`); no public name does this. It clears
    # nothing, but `os._exit` below means they never run a second time.
    atexit._run_exitfuncs()  # noqa: SLF001 - the one way to run them before os._exit
    logging.shutdown()
    _flush(sys.stdout)
    _flush(sys.stderr)
    os._exit(status)


def _join_threads() -> None:
    """What the interpreter's shutdown waits for: every non-daemon thread."""
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon and thread.is_alive():
            thread.join()


def _flush(stream: object) -> None:
    """Flush a standard stream; a reader that left (`| head`) or a closed stream is no
    reason for another status: the command already decided its own."""
    flush = getattr(stream, "flush", None)
    if flush is None:
        return
    try:
        flush()
    except (OSError, ValueError):
        pass
