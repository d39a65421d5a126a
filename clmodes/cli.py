"""The `clmodes` command. The library logs; only this module prints."""

from __future__ import annotations

import argparse
import json
import sys
import time

import clmodes
from clmodes.errors import ClmodesError


def _devices(args: argparse.Namespace) -> int:
    rows = [
        {"index": d.index, "label": d.label, "vendor": d.fingerprint.vendor,
         "model": d.fingerprint.model, "exact": d.fingerprint.exact}
        for d in clmodes.devices()
    ]
    if not rows:
        raise clmodes.NoDeviceError(f"no OpenCL platform found; {clmodes.device.INSTALL_HINT}")
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        print(f"[{row['index']}] {row['label']}")
        print(f"    model: {row['model']}")
        print(f"    exact: {row['exact']}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from clmodes import demo

    device = clmodes.client(args.device).device
    collector = clmodes.StatisticsCollector()
    reader = clmodes.StatisticsReader(collector)
    started = time.perf_counter()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_ONLY, collector):
        demo.workload()
    queued = reader.statistics()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        demo.workload()
    built = reader.statistics()
    result = demo.workload()
    report = {
        "device": device.label,
        "kernels": len(demo.KERNELS),
        "after_compile_only": queued.as_dict(),
        "after_compile_and_autotune": built.as_dict(),
        "result_ok": bool(result[3] == 3 * 12 + 0.5),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        c0, c1 = queued.compilation, built.compilation
        print(f"device: {report['device']}")
        print(f"COMPILE_ONLY pass:         {c0.kernels} kernels obtained, {c0.builds} builds")
        print(f"COMPILE_AND_AUTOTUNE pass: {c1.kernels} kernels obtained, {c1.builds} build(s)")
        print(f"EXECUTE pass result correct: {report['result_ok']}  ({report['seconds']} s)")
    return 0 if report["result_ok"] else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="clmodes", description=__doc__)
    parser.add_argument("--version", action="version", version=clmodes.__version__)
    verbs = parser.add_subparsers(dest="verb", required=True)
    listing = verbs.add_parser("devices", help="list OpenCL devices and their fingerprints")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=_devices)
    demo = verbs.add_parser("demo", help="a COMPILE_ONLY pass, one batch build, statistics")
    demo.add_argument("--device", default=None)
    demo.add_argument("--json", action="store_true")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except ClmodesError as error:
        print(f"clmodes: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
