"""`clmodes warm MODULE:FUNCTION`: the command around `clmodes.warm`."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from clmodes.runtime import all_clients
from clmodes.runtime import default_store
from clmodes.warm import warm
from clmodes.cli.devices import select_device
from clmodes.cli.errors import UsageError
from clmodes.errors import StoreNotPersistentError
from clmodes.cli.render import emit, warm_text


def load_workload(target: str) -> Callable[[], object]:
    """`package.module:function` -> the function, or a one-line `UsageError`.

    The current directory is importable, as it is for `python -m`: a workload is usually
    a module of the project the command is run in, not an installed package."""
    module_name, sep, function_name = target.partition(":")
    if not sep or not module_name or not function_name:
        raise UsageError(f"expected MODULE:FUNCTION, got {target!r}")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise UsageError(f"cannot import module {module_name!r}: {error}") from error
    workload = getattr(module, function_name, None)
    if workload is None:
        raise UsageError(f"module {module_name!r} has no function {function_name!r}")
    if not callable(workload):
        raise UsageError(f"{target} is not callable")
    return workload


def run_warm(args: argparse.Namespace) -> int:
    """Warm the workload into the default store; report what it compiled and tuned."""
    select_device(args)
    workload = load_workload(args.workload)
    started = time.perf_counter()
    try:
        # Progress goes to standard error, and only on a terminal (`TerminalProgress`), so
        # `--json` on standard output never mixes with it; `-q` turns it off.
        with open(os.devnull, "w") if args.quiet else contextlib.nullcontext(sys.stderr) as shown:
            statistics = warm(workload, progress=shown, allow_memory=args.allow_memory)
    except StoreNotPersistentError as error:
        raise UsageError(f"{error} (--allow-memory)") from error
    report: dict[str, Any] = {
        "workload": args.workload,
        "devices": list(dict.fromkeys(each.device.label for each in all_clients())),
        **statistics.as_dict(),
        "seconds": round(time.perf_counter() - started, 3),
        "store": default_store().location,
    }
    emit(args.json, report, warm_text)
    return 0
