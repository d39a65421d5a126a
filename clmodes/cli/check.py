"""`clmodes check MODULE:FUNCTION`: exit 0 only if the workload starts warm on this store.

The store is opened read-only before anything else touches it (the device check
included): a check must not change what it checks. What the run compiles and tunes stays
in this process's memory, so a second check says what the first said."""

from __future__ import annotations

import argparse
from typing import Any

from clmodes.checking import check
from clmodes.execution.statistics import OutsideStatistics
from clmodes.cli.devices import select_device
from clmodes.cli.render import emit
from clmodes.cli.workload_output import to_stderr
from clmodes.cli.remote import configure_remote
from clmodes.pyopencl_hooks.outside import summary
from clmodes.runtime import default_runtime, default_store
from clmodes.store.connection import default_location
from clmodes.workload import load_workload

FAILED = 1  # the check ran and found misses (2 is a user error)
READ_ONLY = "clmodes check reads the store and never writes it"


def run_check(args: argparse.Namespace) -> int:
    default_runtime().relocate(default_location(), READ_ONLY)
    select_device(args)
    configure_remote(args)
    workload = load_workload(args.workload)
    with to_stderr(args.json):
        report = check(workload)
    store = default_store()
    where = f"{store.requested} (no store there)" if store.in_memory else store.location
    emit(args.json, {"workload": args.workload, "store": where, **report.as_dict()},
         check_text)
    return 0 if report.passed else FAILED


def check_text(r: dict[str, Any]) -> str:
    """One line per distinct miss (a tune's candidates are often one kernel name with other
    defines: "kernel 'gemm' (9 variants)"), then the verdict."""
    c, keys = r["compilation"], r["autotune"]["keys"]
    counts: dict[str, int] = {}
    for m in r["misses"]:
        line = (f"{m['kind']} {m['name']!r}" + (f" key {m['key']}" if m["key"] else "")
                + f" on {m['device']}: {m['why']}")
        counts[line] = counts.get(line, 0) + 1
    lines = [f"miss: {line}" if n == 1 else f"miss ({n} variants): {line}"
             for line, n in counts.items()]
    found = r["outside"]
    if found["kernels"]:
        lines.append("outside: " + summary(OutsideStatistics(
            found["kernels"], found["launches"], tuple(found["names"]))))
    verdict = "passed" if r["passed"] else "FAILED"
    lines.append(f"check {verdict}: {r['workload']}: {c['compiled']} compiled from source, "
                 f"{c['loaded']} loaded, {keys} keys tuned (store: {r['store']})")
    return "\n".join(lines)
