"""`clmodes demo`: `clmodes.demo.run`, printed.

The demo warms into an in-memory store, so that it shows the one batch build every
time it is run and, as it always has, leaves the store on disk as it was. The command's
process ends with the verb, so nothing else sees that store.
"""

from __future__ import annotations

import argparse

from clmodes import demo
from clmodes.runtime import set_cache_dir
from clmodes.cli.devices import select_device
from clmodes.cli.render import demo_text, emit


def run_demo(args: argparse.Namespace) -> int:
    """Exit 1 if the batched kernels computed a wrong result."""
    select_device(args)
    set_cache_dir(None)
    report = demo.run()
    emit(args.json, report.as_dict(), demo_text)
    return 0 if report.result_ok else 1
