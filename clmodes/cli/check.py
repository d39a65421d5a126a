"""`clmodes check MODULE:FUNCTION`: exit 0 only if the workload starts warm on this store."""

from __future__ import annotations

import argparse
from typing import Any

from clmodes.checking import check
from clmodes.cli.devices import select_device
from clmodes.cli.render import emit
from clmodes.cli.remote import configure_remote
from clmodes.runtime import default_store
from clmodes.workload import load_workload

FAILED = 1  # the check ran and found misses (2 is a user error)


def run_check(args: argparse.Namespace) -> int:
    select_device(args)
    configure_remote(args)
    workload = load_workload(args.workload)
    report = check(workload)
    emit(args.json, {"workload": args.workload, "store": default_store().location,
                     **report.as_dict()}, check_text)
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
    verdict = "passed" if r["passed"] else "FAILED"
    lines.append(f"check {verdict}: {r['workload']}: {c['compiled']} compiled from source, "
                 f"{c['loaded']} loaded, {keys} keys tuned (store: {r['store']})")
    return "\n".join(lines)
