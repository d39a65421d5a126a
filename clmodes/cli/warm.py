"""`clmodes warm MODULE:FUNCTION`: the command around `clmodes.warm`."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import Any

from clmodes.runtime import all_clients
from clmodes.runtime import default_store
from clmodes.warming import warm
from clmodes.cli.devices import select_device
from clmodes.cli.errors import UsageError
from clmodes.workload import load_workload
from clmodes.errors import StoreNotPersistentError
from clmodes.cli.render import emit, warm_text
from clmodes.cli.remote import configure_remote
from clmodes.cli.workload_output import to_stderr


def run_warm(args: argparse.Namespace) -> int:
    """Warm the workload into the default store; report what it compiled and tuned."""
    select_device(args)
    configure_remote(args)
    workload = load_workload(args.workload)
    started = time.perf_counter()
    try:
        # Progress goes to standard error, and only on a terminal (`TerminalProgress`), so
        # `--json` on standard output never mixes with it; `-q` turns it off.
        with open(os.devnull, "w") if args.quiet else contextlib.nullcontext(sys.stderr) as shown, \
                to_stderr(args.json):
            statistics = warm(workload, progress=shown, allow_memory=args.allow_memory,
                              sign=args.sign)
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
