"""`clmodes warm MODULE:FUNCTION`: the command around `clmodes.warm`.

The exit status tells a script three outcomes apart, besides the usage error (2) and a
stop by a signal (128 + the signal) every verb has:

- 0: warmed, and the workload ran through both passes (or, with `--execute`, for real).
- 3 (`WARMED_PARTLY`): the workload raised its own exception in a discarding pass, most
  often a check of values the dropped launches never computed; what it gathered before
  is compiled, tuned and persisted, the report is printed, and one line names the error.
  Not 0: the warm may lack what the workload would have launched after the error, and a
  CI install script must be able to see that (`|| [ $? -eq 3 ]` accepts it). Not 1 or
  2: nothing failed for real and nothing was asked wrongly. 3 is `clmodes fleet warm`'s
  "wrote what succeeded" (`--allow-partial`), the same kind of answer.
- 1 (`WORKLOAD_FAILED`): with `--execute` the workload raised while running for real, a
  real failure as `python` and `clmodes run` report it (status 1), in one line; what it
  built before is persisted all the same.

`--target intel-gpu:FAMILY[,FAMILY...]` also builds every batch the warm stored offline,
with Intel's `ocloc`, for those Intel GPU families (`clmodes.offline.targets`); the
report adds what it built and the time against the local warm's.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from clmodes.execution import ExecutionStatistics, WarmPass
from clmodes.runtime import all_clients
from clmodes.runtime import default_store
from clmodes.warming import FAILURE_RECORD, failure_line, failure_of, is_verdict, warm
from clmodes.cli.devices import select_device
from clmodes.cli.errors import UsageError
from clmodes.workload import load_workload
from clmodes.offline import ocloc
from clmodes.offline.families import Family
from clmodes.offline.targets import parse_targets, warm_for_targets
from clmodes.errors import StoreNotPersistentError
from clmodes.cli.render import emit, warm_text
from clmodes.cli.remote import configure_remote
from clmodes.cli.workload_output import to_stderr

WARMED_PARTLY = 3
WORKLOAD_FAILED = 1


def run_warm(args: argparse.Namespace) -> int:
    """Warm the workload into the default store; report what it compiled and tuned."""
    select_device(args)
    configure_remote(args)
    targets = _targets(args)
    workload = _Watched(load_workload(args.workload))
    started = time.perf_counter()
    offline = None
    try:
        # Progress goes to standard error, and only on a terminal (`TerminalProgress`), so
        # `--json` on standard output never mixes with it; `-q` turns it off.
        with open(os.devnull, "w") if args.quiet else contextlib.nullcontext(sys.stderr) as shown, \
                to_stderr(args.json), _failure_said_here():
            if targets:
                statistics, offline = warm_for_targets(workload, targets, progress=shown,
                                                       allow_memory=args.allow_memory)
            else:
                statistics = warm(workload, progress=shown, allow_memory=args.allow_memory,
                                  sign=args.sign, execute=args.execute)
    except StoreNotPersistentError as error:
        raise UsageError(f"{error} (--allow-memory)") from error
    except Exception as error:  # noqa: BLE001 - only `--execute` lets the workload's own through
        if not args.execute or error is not workload.raised or is_verdict(error):
            raise
        print(f"clmodes: warm --execute: {failure_line(failure_of(error, WarmPass.EXECUTING))}",
              file=sys.stderr)
        return WORKLOAD_FAILED
    report: dict[str, Any] = {
        "workload": args.workload,
        "devices": list(dict.fromkeys(each.device.label for each in all_clients())),
        **statistics.as_dict(),
        "seconds": round(time.perf_counter() - started, 3),
        "store": default_store().location,
    }
    if offline is not None:
        report["offline"] = offline.as_dict()
    emit(args.json, report, warm_text)
    return _said(statistics)


def _targets(args: argparse.Namespace) -> list[Family]:
    """The offline targets asked for, checked before anything runs (and `ocloc` found)."""
    if not args.target:
        return []
    if args.execute or args.sign:
        raise UsageError("--target builds offline after the two discarding passes: it "
                         "takes neither --execute nor --sign")
    families = parse_targets(args.target)
    ocloc.find()  # missing: one line naming the Debian packages, before the workload runs
    return families


def _said(statistics: ExecutionStatistics) -> int:
    """The status, and the workload's error in one line on standard error (after the
    report, so it is the last thing a person reads)."""
    failure = statistics.workload_error
    if failure is None:
        return 0
    print(f"clmodes: warm: {failure_line(failure)}; --execute runs it for real",
          file=sys.stderr)
    return WARMED_PARTLY


class _Watched:
    """The workload, remembering the exception it raised: under `--execute` that one is
    the workload's real failure (one line, status 1), while anything else `warm()` may
    raise afterwards (publishing, the size cap) keeps its own handling."""

    def __init__(self, workload: Callable[[], object]) -> None:
        functools.update_wrapper(self, workload)
        self._workload = workload
        self.raised: BaseException | None = None

    def __repr__(self) -> str:
        return repr(self._workload)

    def __call__(self) -> object:
        try:
            return self._workload()
        except Exception as error:
            self.raised = error
            raise


class _DropFailureRecord(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, FAILURE_RECORD, False)


@contextlib.contextmanager
def _failure_said_here() -> Iterator[None]:
    """The library logs the workload's error as a warning; the command says it in its
    own line (`_said`, shown even under `-q`), so the logged copy is dropped meanwhile."""
    logger, dropped = logging.getLogger("clmodes"), _DropFailureRecord()
    logger.addFilter(dropped)
    try:
        yield
    finally:
        logger.removeFilter(dropped)
