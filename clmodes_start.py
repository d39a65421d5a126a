"""The `clmodes` command's first lines: its signals answered before anything is imported.

Outside the `clmodes` package on purpose. The console script imports its entry point's
module, and importing any module of `clmodes` first imports the package, which imports
pyopencl and numpy (0.3 s on a quiet machine; up to 9 s under load). A Ctrl-C in that
window printed a `KeyboardInterrupt` traceback and killed the process by the signal;
a SIGTERM there (or while the command ends: its threads joined, its `atexit` handlers
run) killed it with no line at all. Here, before those imports, both signals end the
command at once with the one line and 128 + the signal; while the verb runs,
`clmodes.cli.errors.interruptible` hands them back to Python (Ctrl-C raises
`KeyboardInterrupt`, SIGTERM `Terminated`) so that the verb unwinds (a warm's deferred
writes dropped, its published decisions withdrawn) and says its own line; it puts these
back for the command's end.

Nothing here may import more than the standard library's `os`, `signal` and `sys`: this
module runs before the window it closes.
"""

from __future__ import annotations

import os
import signal
import sys

# What the command says when stopped before or after its verb runs (nothing of the verb's
# work is half-written: a verb that was running unwinds and says its own line instead).
LINES: dict[int, str] = {
    signal.SIGINT: "clmodes: interrupted (Ctrl-C); the store holds what was committed before "
                   "it and nothing half-written",
    signal.SIGTERM: "clmodes: terminated (SIGTERM); the store holds what was committed before "
                    "it and nothing half-written",
}


def end_now(signum: int, frame: object = None) -> None:
    """The signal handler outside the verb: the one line, then `os._exit(128 + signum)`
    (no Python teardown to interrupt again, no runtime destructors: `cli/exiting.py`)."""
    try:
        os.write(2, (LINES.get(signum, f"clmodes: stopped by signal {signum}") + "\n").encode())
    finally:
        os._exit(128 + signum)


def install() -> None:
    """Answer Ctrl-C and SIGTERM with `end_now` from here on (the main thread only)."""
    for signum in LINES:
        signal.signal(signum, end_now)


def run() -> None:
    """The `clmodes` script: signals answered first, then the command (`clmodes.cli.run`)."""
    install()
    try:
        from clmodes.cli import run as command

        command()
    except KeyboardInterrupt:  # a moment between handlers: still the one line
        end_now(signal.SIGINT)
    except BaseException as error:
        errors = sys.modules.get("clmodes.cli.errors")
        if errors is not None and isinstance(error, errors.Terminated):
            end_now(signal.SIGTERM)
        raise
