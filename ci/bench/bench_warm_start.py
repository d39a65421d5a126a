#!/usr/bin/env python
"""A warmed process's start: the MLP workload cold, warmed, and against the floor.

    python ci/bench/bench_warm_start.py [--json OUT] [--reps N] [--workload MODULE:FUNC]
                                        [--smoke]

One device ($CLMODES_DEVICE, else the first usable). Every side is one fresh process timed
by this parent from its start to its exit (interpreter start, imports, device, store,
kernels, the workload's own work, exit): what a user waits for. Python writes and reads its
bytecode caches as on a user's machine (PYTHONDONTWRITEBYTECODE is removed from the
children's environment; one untimed run of each side fills them first). PoCL's kernel
cache and pyopencl's cache are off on every side; `--pocl-cache` turns PoCL's on as a
user has it, empty for each cold run and the one `clmodes warm` filled for the others.

- cold:        the workload in EXECUTE on a fresh store (compiles, tunes, computes);
- warmed:      the workload in a fresh process on the store `clmodes warm` filled (untimed);
- floor:       `import numpy, pyopencl`, the platform list, a context and a queue on the
               same device, nothing else: the least any OpenCL process here pays;
- floor+bins:  the floor, then every program binary the warmed store holds for the device
               built with `pyopencl.Program(context, [device], [binary]).build()`, read from
               the store's SQLite file as data: the least a process that loads those kernels
               pays, with no clmodes (what pyopencl's own binary cache can at best do).

Per rep the sides run in an order rotated by one; figures are medians over reps. Ratios:
`cold_over_warmed` (the issue's target: 20), `cold_over_floor` (the most that ratio can be
here: a warmed process cannot start faster than the floor), `warmed_over_floor_bins`
(clmodes' own cost over loading the same binaries by hand: imports, device check, store,
hooks, the launch path). The 1-minute load is printed before and after.
"""

from __future__ import annotations

import benchlib

import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

SIDES = ("cold", "warmed", "floor", "floor+bins")
WORKLOAD = "kernels_cl.workloads:mlp"
TIMEOUT_S = 600

RUN_WORKLOAD = r'''
import importlib, sys
module, _, name = sys.argv[1].partition(":")
result = getattr(importlib.import_module(module), name)()
'''

# The floor: no clmodes. argv: platform name, device name, [store file].
FLOOR = r'''
import json, sqlite3, sys
import numpy, pyopencl as cl
platform_name, device_name = sys.argv[1], sys.argv[2]
device = next(d for p in cl.get_platforms() if p.name == platform_name
              for d in p.get_devices() if d.name == device_name)
context = cl.Context([device])
queue = cl.CommandQueue(context)
if len(sys.argv) > 3:
    with sqlite3.connect(sys.argv[3]) as db:
        rows = db.execute("SELECT binary FROM binaries WHERE exact = ?", (sys.argv[4],)).fetchall()
    magic = b"clmodes source record 1\n"  # clmodes.source_records: built again from PoCL's cache
    programs = [cl.Program(context, [device], [bytes(binary)]).build()
                if not bytes(binary).startswith(magic) else
                cl.Program(context, json.loads(bytes(binary)[len(magic):])["source"]).build(
                    ["-cl-kernel-arg-info", *json.loads(bytes(binary)[len(magic):])["options"]])
                for (binary,) in rows]
    print(len(programs))
'''


def child_environment(store: Path, pocl_cache: Path | None = None) -> dict[str, str]:
    """Every cache off; with `pocl_cache`, PoCL's kernel cache on (its default) in that
    folder, where clmodes keeps PoCL batches as source records (clmodes.source_records)."""
    pocl = {} if pocl_cache is None else {"POCL_KERNEL_CACHE": "1",
                                          "POCL_CACHE_DIR": str(pocl_cache)}
    return benchlib.child_env(store=store, path=(), drop=["PYTHONDONTWRITEBYTECODE"],
                              **{**benchlib.COLD, **pocl})


def timed_process(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """(wall seconds, standard output) of one fresh process, which must exit 0."""
    return benchlib.timed_child(command, f"bench_warm_start: {command[:3]}", env=env,
                                timeout=TIMEOUT_S, cwd=benchlib.ROOT)


class Sides:
    """The four sides on one device, with the warmed store filled once."""

    def __init__(self, workload: str, device, warmed_store: Path,
                 pocl_cache: Path | None = None) -> None:
        self.workload = workload
        self.pocl_cache = pocl_cache  # the folder the warm filled; None: PoCL's cache off
        self.device = device
        self.warmed_store = warmed_store
        self.store_file = next(warmed_store.glob("*.sqlite3"))
        self.exact = device.fingerprint.exact

    def command(self, side: str) -> tuple[list[str], Path]:
        """The side's command and the store it runs on (a fresh one for cold)."""
        py = sys.executable
        where = [self.device.platform_name, self.device.name]
        if side == "cold":
            return [py, "-c", RUN_WORKLOAD, self.workload], Path(tempfile.mkdtemp(prefix="cold-"))
        if side == "warmed":
            return [py, "-c", RUN_WORKLOAD, self.workload], self.warmed_store
        if side == "floor":
            return [py, "-c", FLOOR, *where], self.warmed_store
        return [py, "-c", FLOOR, *where, str(self.store_file), self.exact], self.warmed_store

    def run(self, side: str) -> tuple[float, str]:
        command, store = self.command(side)
        cache = self.pocl_cache
        if cache is not None and side == "cold":  # cold: PoCL's cache empty too
            cache = Path(tempfile.mkdtemp(prefix="cold-pocl-"))
        env = child_environment(store, cache)
        env["CLMODES_DEVICE"] = self.device.label
        return timed_process(command, env)


def warm_store(workload: str, device, pocl_cache: Path | None = None) -> Path:
    store = Path(tempfile.mkdtemp(prefix="warmed-"))
    env = child_environment(store, pocl_cache)
    env["CLMODES_DEVICE"] = device.label
    timed_process(benchlib.clmodes_cli("warm", workload, "-q"), env)
    return store


def measure(workload: str, device, reps: int, log, pocl_cache: bool = False) -> dict[str, object]:
    cache = Path(tempfile.mkdtemp(prefix="warmed-pocl-")) if pocl_cache else None
    store = warm_store(workload, device, cache)
    sides = Sides(workload, device, store, cache)
    loaded = sides.run("floor+bins")[1].strip()
    for side in SIDES:  # untimed: fill the bytecode caches and the OS's file cache
        sides.run(side)
    walls = benchlib.rounds(SIDES, reps, lambda side, _: sides.run(side)[0],
                            lambda rep, walls: log(f"rep {rep + 1}/{reps}: " + ", ".join(
                                f"{s} {walls[s][-1]:.3f} s" for s in SIDES)))
    median = benchlib.medians(walls)
    return {
        "device": device.label,
        "binaries_in_warmed_store": int(loaded or 0),
        "seconds": median,
        "samples": walls,
        "ratios": {
            "cold_over_warmed": median["cold"] / median["warmed"],
            "cold_over_floor": median["cold"] / median["floor"],
            "warmed_over_floor_bins": median["warmed"] / median["floor+bins"],
            "floor_bins_over_floor": median["floor+bins"] / median["floor"],
        },
    }


def main() -> None:
    parser = benchlib.parser(__doc__, reps=5, smoke_help="one rep (the suite's smoke)")
    parser.add_argument("--workload", default=WORKLOAD)
    parser.add_argument("--pocl-cache", action="store_true",
                        help="PoCL's kernel cache on (its default): empty for cold, the one "
                             "`clmodes warm` filled for the others")
    args = parser.parse_args()
    log = benchlib.progress_logger(False)
    import clmodes  # registers Intel's runtime with the ICD loader; the children inherit it

    device = clmodes.client().device
    reps = 1 if args.smoke else args.reps
    before = benchlib.loadavg_1min()
    results = measure(args.workload, device, reps, log, args.pocl_cache)
    after = benchlib.loadavg_1min()
    results["load"] = benchlib.load_text(before, after)
    print(f"device: {results['device']}; load {results['load']}")
    seconds = results["seconds"]
    assert isinstance(seconds, dict)
    print("  ".join(f"{side} {seconds[side]:.3f} s" for side in SIDES))
    ratios = results["ratios"]
    assert isinstance(ratios, dict)
    for name, value in ratios.items():
        print(f"{name}: {value:.2f}")
    benchlib.write_json(args.json, results)


if __name__ == "__main__":
    main()
