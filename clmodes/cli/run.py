"""`clmodes run SCRIPT [ARGS...]` and `clmodes run -m MODULE [ARGS...]`: a pyopencl program,
unchanged, with its programs loaded from the store or built and persisted
(`clmodes.running`).

The convention of `coverage run` and `py-spy`: the program gets its own `sys.argv`, runs
as `__main__`, and its exit status, standard output and standard error are its own (an
uncaught exception prints its traceback, its own frames only, and gives status 1, as
`python` does). clmodes prints nothing on standard output; `--report FILE` writes the
run's statistics as JSON (after Ctrl-C or SIGTERM too, marked interrupted: a CI job
that asked for a report gets what was gathered), and `--strict` fails the run (one line on standard error per kernel, status 1 if the
program itself succeeded) when anything was built from source: the gate of a warmed
image or a CI job.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import signal
import sys
import warnings
from pathlib import Path

import pyopencl

from clmodes.cli.errors import Terminated, UsageError
from clmodes.running import RunReport, running

STRICT_FAILED = 1
_INTERRUPTED = {KeyboardInterrupt: 128 + signal.SIGINT, Terminated: 128 + signal.SIGTERM}
_RUNNERS = frozenset((__name__, "runpy"))  # modules whose frames run the program


def run_program(args: argparse.Namespace) -> int:
    if args.json and not args.report:
        raise UsageError("clmodes run: --json needs --report FILE (the program's standard "
                         "output is its own)")
    target = args.target
    if not args.module and not Path(target).is_file():
        raise UsageError(f"clmodes run: no such script: {target}")
    stop: KeyboardInterrupt | Terminated | None = None
    with running() as session:
        try:
            status = _execute(target, list(args.args), args.module)
        except (KeyboardInterrupt, Terminated) as caught:
            # A CI job that asked for a report gets what was gathered until then; the
            # interrupt goes on to the command's one line and 130 (143 for SIGTERM).
            stop, status = caught, _INTERRUPTED[type(caught)]
    report = session.report
    assert report is not None  # filled when `running()` ends
    if args.report:
        Path(args.report).write_text(json.dumps({"program": target, "status": status,
                                                 "interrupted": stop is not None,
                                                 **report.as_dict()}, indent=2) + "\n")
    if stop is not None:
        raise stop
    if args.strict and report.built:
        _strict_lines(report)
        return status or STRICT_FAILED
    return status


def _strict_lines(report: RunReport) -> None:
    for miss in report.built:
        print(f"clmodes run --strict: built from source: {miss.line()}", file=sys.stderr)


def _execute(target: str, argv: list[str], module: bool) -> int:
    """Run the program as `python` would; its exit status."""
    _program_warnings()
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    try:
        if module:
            sys.argv = [target, *argv]
            sys.path.insert(0, os.getcwd())
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [target, *argv]
            sys.path.insert(0, str(Path(target).resolve().parent))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as done:
        return _status(done.code)
    except Exception as error:  # noqa: BLE001 - the program's own error, shown as python shows it
        _show_traceback(error)
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0


def _show_traceback(error: Exception) -> None:
    """The program's error as `python script.py` shows it: its own frames only. The
    frames above them (this module's and runpy's, which ran the program) are clmodes'
    machinery, not the program's; they are cut where the traceback starts. Through
    `sys.excepthook`, as `python` does, so that a hook the program installed shows it."""
    frames = error.__traceback__
    while frames is not None and frames.tb_frame.f_globals.get("__name__") in _RUNNERS:
        frames = frames.tb_next
    # Python's own hook prints the exception's `__traceback__`, whatever it is given.
    sys.excepthook(type(error), error.with_traceback(frames), frames)


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _program_warnings() -> None:
    """The command hides pyopencl's compiler warnings (`clmodes.cli.main`); a program run
    here shows what it would show on its own."""
    warnings.filterwarnings("default", category=pyopencl.CompilerWarning)  # ahead of it
