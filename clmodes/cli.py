"""The `clmodes` command. The library logs; only this module prints.

Every verb takes `--json` for scripts. User errors (no device, unknown module or
function, a bad argument) exit non-zero with one line on standard error, no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import pyopencl

import clmodes
from clmodes.client import all_clients
from clmodes.errors import ClmodesError


class UsageError(ClmodesError):
    """A mistake on the command line."""


def _emit(args: argparse.Namespace, payload: Any, text: Callable[[Any], str]) -> None:
    print(json.dumps(payload, indent=2) if args.json else text(payload))


def _select_device(args: argparse.Namespace) -> clmodes.Device | None:
    """`--device` applies to everything the command does, the workload's own
    `clmodes.client()` calls included, so it is passed on as `$CLMODES_DEVICE`."""
    if getattr(args, "device", None) is None:
        return None
    device = clmodes.client(args.device).device
    os.environ["CLMODES_DEVICE"] = str(device.index)
    return device


# -- devices ---------------------------------------------------------------------------


def _devices(args: argparse.Namespace) -> int:
    rows = [
        {"index": d.index, "label": d.label, "vendor": d.fingerprint.vendor,
         "model": d.fingerprint.model, "exact": d.fingerprint.exact}
        for d in clmodes.devices()
    ]
    if not rows:
        raise clmodes.NoDeviceError(f"no OpenCL platform found; {clmodes.device.INSTALL_HINT}")
    _emit(args, rows, lambda rows: "\n".join(
        f"[{r['index']}] {r['label']}\n    model: {r['model']}\n    exact: {r['exact']}"
        for r in rows
    ))
    return 0


# -- warm ------------------------------------------------------------------------------


def load_workload(target: str) -> Callable[[], object]:
    """`package.module:function` -> the function, or a one-line UsageError."""
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


def _warm(args: argparse.Namespace) -> int:
    _select_device(args)
    workload = load_workload(args.workload)
    started = time.perf_counter()
    statistics = clmodes.warm(workload)
    c = statistics.compilation
    report = {
        "workload": args.workload,
        "devices": [client.device.label for client in all_clients()],
        **statistics.as_dict(),
        "seconds": round(time.perf_counter() - started, 3),
        "store": clmodes.default_store().location,
    }
    _emit(args, report, lambda r: (
        f"warmed {r['workload']} on {', '.join(r['devices']) or 'no device'} "
        f"in {r['seconds']} s\n"
        f"  kernels: {c.compiled} compiled, {c.loaded} loaded, in {c.builds} build(s)\n"
        f"  autotune: {statistics.autotune.keys} keys tuned\n"
        f"  store: {r['store']}"
    ))
    return 0


# -- cache -----------------------------------------------------------------------------


def _cache_info(args: argparse.Namespace) -> int:
    info = clmodes.default_store().info()

    def text(info: dict[str, Any]) -> str:
        lines = [f"store: {info['location']} ({info['bytes']} bytes)"]
        if not info["devices"]:
            lines.append("  (empty)")
        for model, entry in info["devices"].items():
            lines.append(f"  {model}")
            lines.append(f"    tune results: {entry['tune_results']} ({entry['tune_bytes']} bytes)")
            if entry.get("probe_results"):
                lines.append(f"    throughput probe: {entry['probe_results']}")
            for exact, driver in entry["drivers"].items():
                lines.append(f"    {exact[len(model) + 3:]}")
                lines.append(
                    f"      program binaries: {driver['binaries']} ({driver['binary_bytes']} bytes)"
                    f", kernels indexed: {driver['kernels']}"
                )
        return "\n".join(lines)

    _emit(args, info, text)
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    device = _select_device(args)
    store = clmodes.default_store()
    model = device.fingerprint.model if device else None
    deleted = store.clear(model)
    report = {"store": store.location, "device": model, "deleted": deleted}
    _emit(args, report, lambda r: (
        f"cleared {r['deleted']} entries from {r['store']}"
        + (f" for {r['device']}" if r["device"] else "")
    ))
    return 0


# -- bundles ---------------------------------------------------------------------------


def _bundle_export(args: argparse.Namespace) -> int:
    from clmodes import bundle

    manifest = bundle.export(args.file, args.device)
    _emit(args, {"file": args.file, "manifest": manifest}, lambda r: (
        f"exported {r['file']}: " + _counts(r["manifest"]) + "\n" + _devices_text(r["manifest"])
    ))
    return 0


def _bundle_import(args: argparse.Namespace) -> int:
    from clmodes import bundle

    report = bundle.install(args.file)

    def text(r: dict[str, Any]) -> str:
        lines = [f"imported {r['file']} into {r['store']}"]
        for d in r["devices"]:
            lines.append(f"  {d['exact'] or d['model']}")
            lines.append("    " + _match_text(d))
            if d["match"] != "none":
                lines.append(f"    tune results: {d['tune']['added']} added of {d['tune']['in_bundle']}"
                             " (entries measured here are kept)")
                used = "added" if d["binaries"]["used"] else "dropped (driver differs)"
                lines.append(f"    program binaries: {d['binaries']['added'] if d['binaries']['used'] else 0} "
                             f"of {d['binaries']['in_bundle']} {used}")
        added = r["added"]
        if not any(added.values()):
            lines.append("nothing applied: no entry in this bundle is new for a device here")
        return "\n".join(lines)

    _emit(args, report, text)
    return 0


def _bundle_inspect(args: argparse.Namespace) -> int:
    from clmodes import bundle

    report = bundle.inspect(args.file)
    _emit(args, report, lambda r: (
        f"{r['file']}: clmodes bundle schema {r['manifest']['schema']}, made by clmodes "
        f"{r['manifest']['clmodes']} on {r['manifest']['created']}\n"
        + _counts(r["manifest"]) + "\n" + _devices_text(r["manifest"]) + "\non this machine:\n"
        + "\n".join(f"  {m['exact'] or m['model']}\n    {_match_text(m)}" for m in r["matches"])
        + "".join(f"\nroofline: {x['tunable']} {x['key']}: {x['winner']} at {x['roofline']:.0%}"
                  for x in r.get("roofline", []))
    ))
    return 0


def _bundle_merge(args: argparse.Namespace) -> int:
    from clmodes import bundle

    manifest = bundle.merge(args.out, args.inputs)
    _emit(args, {"file": args.out, "manifest": manifest}, lambda r: (
        f"merged {len(args.inputs)} bundles into {r['file']}: " + _counts(r["manifest"]) + "\n"
        + _devices_text(r["manifest"])
    ))
    return 0


def _counts(manifest: dict[str, Any]) -> str:
    c = manifest["counts"]
    return (f"{c['tune']} tune results, {c['binaries']} program binaries, "
            f"{c['kernels']} kernels, {len(manifest['devices'])} device model(s)")


def _devices_text(manifest: dict[str, Any]) -> str:
    lines = []
    for d in manifest["devices"]:
        lines.append(f"  [{d['vendor']}] {d['model']}: {d['tune']} tune results")
        for driver in d["drivers"]:
            lines.append(f"      {driver['exact'][len(d['model']) + 3:]}: "
                         f"{driver['binaries']} binaries, {driver['kernels']} kernels")
    return "\n".join(lines)


def _match_text(m: dict[str, Any]) -> str:
    if m["match"] == "exact":
        return f"exact match with {m['local_device']}: binaries and tune results used"
    if m["match"] == "model":
        return (f"same model as {m['local_device']}, other {', '.join(m['differs']) or 'driver'}: "
                "tune results used, binaries dropped")
    return f"no match here (differs in {', '.join(m['differs'])}): skipped"


# -- probe -----------------------------------------------------------------------------


def _probe(args: argparse.Namespace) -> int:
    from clmodes.probe import cached

    _select_device(args)
    client = clmodes.client(args.device)
    from_cache = not args.refresh and cached(client) is not None
    result = clmodes.probe(client, refresh=args.refresh)
    if result is None:  # only under COMPILE_ONLY, which a command never opens
        raise ClmodesError("the probe measured nothing (process mode COMPILE_ONLY)")
    report = {**result.as_dict(), "from_cache": from_cache,
              "bandwidth_gbps": result.bandwidth_gbps, "compute_gflops": result.compute_gflops}

    def text(r: dict[str, Any]) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["measured_at"]))
        origin = "cached" if r["from_cache"] else "measured now"
        lines = [f"{r['device']}", f"  {origin}: {when}, took {r['seconds']:.2f} s",
                 f"  {'figure':8} {'value':>9}  {'unit':8} {'per launch':>12}  {'global x local':>16}"
                 f"  {'per item':>8}  samples  rounds  stable"]
        for f in (*r["bandwidth"], *r["compute"]):
            work = f"{f['work'] / 2**20:.0f} MiB" if f["unit"] == "GB/s" else f"{f['work'] / 1e9:.2f} GFLOP"
            shape = f"{f['global_size']} x {f['local_size']}"
            lines.append(
                f"  {f['name']:8} {f['value']:9.2f}  {f['unit']:8} {work:>12}  "
                f"{shape:>16}  {f['per_item']:>8}  "
                f"{f['samples']:>7}  {f['rounds']:>6}  {'yes' if f['stable'] else 'no':>6}"
            )
        lines.append(f"  roofline: min({r['bandwidth_gbps']:.2f} GB/s x FLOP/byte, "
                     f"{r['compute_gflops']:.2f} GFLOP/s); ridge at "
                     f"{r['compute_gflops'] / r['bandwidth_gbps']:.2f} FLOP/byte")
        lines.append(f"  statistic: {r['statistic']}")
        return "\n".join(lines)

    _emit(args, report, text)
    return 0


# -- demo ------------------------------------------------------------------------------


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
    c0, c1 = queued.compilation, built.compilation
    _emit(args, report, lambda r: (
        f"device: {r['device']}\n"
        f"COMPILE_ONLY pass:         {c0.kernels} kernels obtained, {c0.builds} builds\n"
        f"COMPILE_AND_AUTOTUNE pass: {c1.kernels} kernels obtained "
        f"({c1.compiled} compiled, {c1.loaded} loaded), {c1.builds} build(s)\n"
        f"EXECUTE pass result correct: {r['result_ok']}  ({r['seconds']} s)"
    ))
    return 0 if report["result_ok"] else 1


# -- parser ----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="clmodes", description="OpenCL execution modes")
    parser.add_argument("--version", action="version", version=clmodes.__version__)
    verbs = parser.add_subparsers(dest="verb", required=True)

    def verb(name: str, run: Callable[[argparse.Namespace], int], help: str,
             parent: Any = verbs, device: bool = False) -> argparse.ArgumentParser:
        sub = parent.add_parser(name, help=help)
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        if device:
            sub.add_argument("--device", default=None,
                             help="device index or substring of 'platform / device'")
        sub.set_defaults(run=run)
        return sub

    verb("devices", _devices, "list OpenCL devices and their fingerprints")
    warm = verb("warm", _warm, "compile, tune and persist a workload's kernels", device=True)
    warm.add_argument("workload", help="MODULE:FUNCTION, a zero-argument callable")
    cache = verbs.add_parser("cache", help="the store").add_subparsers(dest="action", required=True)
    verb("info", _cache_info, "location, entries per device and kind, bytes", cache)
    verb("clear", _cache_clear, "delete entries (of one device model with --device)", cache,
         device=True)
    bundle = verbs.add_parser("bundle", help="cache bundles to ship").add_subparsers(
        dest="action", required=True)
    export = verb("export", _bundle_export, "write the store (or one device's entries) to FILE",
                  bundle, device=True)
    export.add_argument("file")
    verb("import", _bundle_import, "fill the local store from FILE", bundle).add_argument("file")
    verb("inspect", _bundle_inspect, "what FILE holds and how it matches here",
         bundle).add_argument("file")
    merged = verb("merge", _bundle_merge, "combine bundles into OUT", bundle)
    merged.add_argument("out")
    merged.add_argument("inputs", nargs="+")
    verb("demo", _demo, "a COMPILE_ONLY pass, one batch build, statistics", device=True)
    probe = verb("probe", _probe, "the device's peak bandwidth and compute (measured once, cached)",
                 device=True)
    probe.add_argument("--refresh", action="store_true", help="measure again, replace the cached result")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # pyopencl turns any compiler output into a warning; the command is an application and
    # keeps its output clean (the library logs the compiler's output at DEBUG instead).
    warnings.filterwarnings("ignore", category=pyopencl.CompilerWarning)
    try:
        return args.run(args)
    except ClmodesError as error:
        print(f"clmodes: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
