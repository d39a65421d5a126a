"""`clmodes run SCRIPT [ARGS...]` and `clmodes run -m MODULE [ARGS...]`: a pyopencl program,
unchanged, with its programs loaded from the store or built and persisted
(`clmodes.running`).

The convention of `coverage run` and `py-spy`: the program gets its own `sys.argv`, runs
as `__main__`, and its exit status, standard output and standard error are its own (an
uncaught exception prints its traceback and gives status 1, as `python` does). clmodes
prints nothing on standard output; `--report FILE` writes the run's statistics as JSON,
and `--strict` fails the run (one line on standard error per kernel, status 1 if the
program itself succeeded) when anything was built from source: the gate of a warmed
image or a CI job.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import traceback
import warnings
from pathlib import Path

import pyopencl

from clmodes.cli.errors import UsageError
from clmodes.running import RunReport, running

STRICT_FAILED = 1


def run_program(args: argparse.Namespace) -> int:
    if args.json and not args.report:
        raise UsageError("clmodes run: --json needs --report FILE (the program's standard "
                         "output is its own)")
    target = args.target
    if not args.module and not Path(target).is_file():
        raise UsageError(f"clmodes run: no such script: {target}")
    with running() as session:
        status = _execute(target, list(args.args), args.module)
    report = session.report
    assert report is not None  # filled when `running()` ends
    if args.report:
        Path(args.report).write_text(json.dumps({"program": target, "status": status,
                                                 **report.as_dict()}, indent=2) + "\n")
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
    except Exception:  # noqa: BLE001 - the program's own error, shown as python shows it
        traceback.print_exc()
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0


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
