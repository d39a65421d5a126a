"""The `clmodes` command. The library logs and returns reports; only this package prints.

Every verb takes `--json` for scripts and `-v`/`-q` for how much the `clmodes` logger
shows (`logs.py`: the command configures that logger, the library never does). User errors (no device, unknown module or
function, a bad argument) exit non-zero with one line on standard error, no traceback
(`errors.py`). Layout: `parser.py` wires the verbs, one module per verb group runs the
library and builds the payload, `render.py` prints it.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import pyopencl

from clmodes.cli.errors import UsageError, interruptible, run_verb, said_when_interrupted
from clmodes.cli.exiting import exit_now
from clmodes.cli.logs import configure
from clmodes.cli.parser import build_parser
from clmodes.workload import load_workload

__all__ = ["UsageError", "load_workload", "main", "run"]


def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit status (0, 1 for a failed check, 2 user error)."""
    # pyopencl turns any compiler output into a warning; the command is an application and
    # keeps its output clean (the library logs the compiler's output at DEBUG instead).
    warnings.filterwarnings("ignore", category=pyopencl.CompilerWarning)
    status = 0
    try:
        # The whole command, parsing included: a signal between the verb's own handling
        # and here once left a `Terminated` traceback and status 1.
        with interruptible(), said_when_interrupted() as stopped:
            status = run_verb(_configured, build_parser().parse_args(argv))
            sys.stdout.flush()  # here, not at exit, where a closed pipe is a traceback
    except BrokenPipeError:
        return _reader_gone()
    return stopped.status or status


def run() -> None:
    """The `clmodes` script and `python -m clmodes`: `main()`, then the process ends with
    its status without the OpenCL runtimes' teardown at exit (`exiting.py` says why)."""
    exit_now(main())


def _reader_gone() -> int:
    """Standard output's reader left (`clmodes cache info | head`): stop quietly, like a
    command killed by SIGPIPE, instead of a BrokenPipeError traceback, now and when Python
    flushes standard output at exit (it points at /dev/null from here on)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141  # 128 + SIGPIPE, what a shell shows for such a command


def _configured(args: argparse.Namespace) -> int:
    """The verb, after `-v`/`-q`/`$CLMODES_LOG` set the logger (a bad level is one line)."""
    configure(args.verbose, args.quiet)
    return args.run(args)
