#!/usr/bin/env python
"""Tuning-space benchmark: clmodes' `Tunable(space=...)` against Kernel Tuner on the GEMM space.

    python ci/bench/bench_space.py [--devices portable,intel] [--sizes 256,512] [--configs 16]
                                   [--subspace 24] [--no-mlp] [--quick|--smoke] [--json OUT]

Needs the `bench` extra (Kernel Tuner 1.x). One device per process: $CLMODES_DEVICE, or
`--devices a,b`, which runs this script once per device (a subprocess each, in turn) and
prints every table.

The space: `kernels_cl.gemm.GEMM_SPACE` (13 parameters, 23376 valid configs), float32,
C = A @ B at each size n x n x n. Both tools get the same source (the GEMM source with a
new `#define BENCH_SALT` per tune, so nothing built by an earlier tune is reused), the
config as defines, the same restriction strings (`GEMM_RESTRICTIONS`) and the same
geometry (Kernel Tuner: problem (n, n), grid divided by (NWG, MWG), block (NDIMC, MDIMC):
the global and local sizes `kernels_cl.gemm.geometry` gives clmodes). Per size, three
strategy families with the same budget, each tool once, the first tool alternating:

- random:     clmodes `RandomSample(N)` / Kernel Tuner `random_sample`, N configs;
- local:      clmodes `LocalSearch()` (its default) / Kernel Tuner `greedy_ils`
              (`--kt-local genetic_algorithm` for the other), both max N configs;
- exhaustive: both over a subspace of `--subspace` valid configs (`SUBSPACES`: fixed
              parameters chosen so that exactly that many remain).

Figures, per size and family:
- wall time to a decision: clmodes, one call of a never-tuned Tunable under EXECUTE until
  the winner's real launch finished (client, stream and inputs made before); Kernel
  Tuner, its `tune_kernel` call (its context and buffers inside). Ratio clmodes / KT
  (target <= 0.4). Cold: POCL_KERNEL_CACHE=0 and PYOPENCL_NO_CACHE=1 before pyopencl
  loads, a fresh temporary clmodes store, a fresh salt per tune.
- quality: each tool's chosen config re-measured afterwards, all chosen configs of the
  size together (the six choices: both exhaustive-subspace winners and the best each tool
  saw), interleaved rounds of profiling events START..END, median; each over the fastest
  re-measured choice in the same space (random, local: the whole space, i.e. the best
  seen by either tool; exhaustive: the subspace's best, which both tools measured).
  Target <= 1.05.
- builds issued: real `pyopencl.Program.build` calls during the tune (both tools build
  through it; PoCL's per-kernel work-group code generation at first launch is not a
  build call, and both tools pay it per config).
Kernel Tuner's answers are checked once per device with `answer=` (3 configs, untimed).

Then `clmodes.warm` of the MLP (`kernels_cl.workloads:mlp`, S = $KERNELS_CL_BATCH rows,
`--mlp-size`) at S and 8S, each against one cold execution at the same size, every run
in a fresh process with a fresh store (`bench_warm.child`): ratio warm / cold (target
<= 0.8), inside the process and process wall; the report says whether the MLP's matmul
tunes hand-written candidates or a space.

The machine's load average is printed at start and end: on a shared 2-core machine it
moves every figure. Cost: dominated by PoCL's code generation at each config's first
launch (both tools pay it) and Intel's compiles; the defaults' run time per device is in
docs/benchmarks.md (`ci/bench/run`). `--quick`: 8 configs, a 12-config subspace, n = 128,
MLP at 64 rows; `--smoke`: seconds. The issue's full budget (`--configs 64 --subspace
96`) measures ~900 configs per device at two sizes: hours on PoCL on a 2-core machine.
"""

from __future__ import annotations

import benchlib

_CACHE_DIR = None
if __name__ == "__main__":
    benchlib.cold_caches()
    _CACHE_DIR = benchlib.temp_store("clmodes-bench-space-")

import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent

# Fixed parameters leaving exactly the named number of valid configs of GEMM_SPACE
# (strided rows and columns, zero-padded edges: the subspaces measured before STRM/STRN
# and EDGE joined the space).
_STRIDED = {"STRM": 1, "STRN": 1, "EDGE": 0}
SUBSPACES = {
    96: {"MWG": 32, "NWG": 64, "KWG": 32, "MDIMC": 8, **_STRIDED},
    48: {"MWG": 32, "NWG": 64, "KWG": 32, "MDIMC": 8, "KWI": 1, **_STRIDED},
    24: {"MWG": 32, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 16, **_STRIDED},
    12: {"MWG": 32, "NWG": 64, "KWG": 32, "MDIMC": 8, "NDIMC": 4, "VWM": 4, **_STRIDED},
}


def parse_args(argv):
    parser = benchlib.parser(__doc__, quiet=True,
                             quick_help="smoke run: n=128, 8 configs, 12-config subspace, "
                                        "MLP at 64 rows",
                             smoke_help="seconds: n=64, 2 configs, the random family only, no "
                                        "MLP, no Kernel Tuner answer check (ci/bench/run --smoke)")
    parser.add_argument("--devices", help="comma-separated $CLMODES_DEVICE selectors: one "
                                          "subprocess per device, in turn")
    parser.add_argument("--sizes", default="256,512", help="n of the n x n x n products")
    parser.add_argument("--configs", type=int, default=16,
                        help="budget N (random, local); the issue's full budget is 64")
    parser.add_argument("--subspace", type=int, default=24, choices=sorted(SUBSPACES),
                        help="valid configs of the exhaustive subspace (full: 96)")
    parser.add_argument("--kt-local", default="greedy_ils",
                        choices=["greedy_ils", "genetic_algorithm"])
    parser.add_argument("--rounds", type=int, default=7, help="re-measurement rounds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mlp-size", type=int, default=1024, help="S: MLP rows")
    parser.add_argument("--no-mlp", action="store_true", help="skip the MLP warm part")
    parser.add_argument("--no-tune", action="store_true", help="only the MLP warm part")
    args = parser.parse_args(argv)
    args.families = None
    if args.smoke:
        args.sizes, args.configs, args.subspace, args.rounds = "64", 2, 12, 1
        args.no_mlp, args.families = True, {"random"}
    elif args.quick:
        args.sizes, args.configs, args.subspace, args.rounds, args.mlp_size = "128", 8, 12, 3, 64
    args.size_list = [int(s) for s in args.sizes.split(",") if s.strip()]
    return args


def forwarded(args) -> list[str]:
    """This run's options for a per-device subprocess."""
    out = ["--sizes", args.sizes, "--configs", str(args.configs), "--subspace",
           str(args.subspace), "--kt-local", args.kt_local, "--rounds", str(args.rounds),
           "--seed", str(args.seed), "--mlp-size", str(args.mlp_size)]
    flags = [flag for flag, on in (("--no-mlp", args.no_mlp), ("--no-tune", args.no_tune),
                                   ("--quiet", args.quiet), ("--smoke", args.smoke)) if on]
    return out + flags


def run_devices(args) -> int:
    """Each device in its own process (one device per process, cold caches each)."""
    results = []
    for selector in args.devices.split(","):
        with tempfile.TemporaryDirectory() as directory:
            out = Path(directory) / "result.json"
            env = {**os.environ, "CLMODES_DEVICE": selector}
            done = subprocess.run([sys.executable, str(HERE / "bench_space.py"), *forwarded(args),
                                   "--json", str(out)], env=env)
            if done.returncode != 0 or not out.exists():
                print(f"# {selector}: failed (rc {done.returncode})", flush=True)
                continue
            results.append(json.loads(out.read_text()))
    benchlib.write_json(args.json, results)
    return 0 if results else 1


# -- one device ------------------------------------------------------------------------------


def run_size(setup: dict, n: int, args, log) -> dict:
    import space_sides as sides
    from kernels_cl.gemm import GEMM_SPACE

    stream, builds, kt, where = setup["stream"], setup["builds"], setup["kt"], setup["where"]
    prob = sides.problem(stream, n)
    subspace = GEMM_SPACE.subspace(**SUBSPACES[args.subspace])
    if len(subspace) != args.subspace:
        raise RuntimeError(f"the exhaustive subspace has {len(subspace)} configs, not "
                           f"{args.subspace}: GEMM_SPACE changed; update SUBSPACES")
    runs = []
    plans = [plan for plan in sides.plans(GEMM_SPACE, subspace, args.configs, args.seed,
                                          args.kt_local)
             if args.families is None or plan.label in args.families]
    for index, plan in enumerate(plans):
        pair = {"family": plan.label, "space_size": len(plan.space)}
        order = benchlib.rotated(["clmodes", "kernel_tuner"], index)
        for tool in order:
            source = sides.salted_source()
            if tool == "clmodes":
                pair[tool] = sides.run_clmodes(stream, prob, plan, source,
                                               f"{plan.label}.{n}.{time.time_ns()}", builds)
            else:
                pair[tool] = sides.run_kernel_tuner(kt, where, prob, plan, source, builds)
            log(f"  n={n} {plan.label:<10} {tool:<12} {pair[tool]['wall_s']:7.1f} s, "
                f"{pair[tool]['measured']} measured, {pair[tool]['builds']} builds -> "
                f"{pair[tool]['choice_name']}")
        pair["first"] = order[0]
        pair["ratio_wall_clmodes_over_kernel_tuner"] = (
            pair["clmodes"]["wall_s"] / pair["kernel_tuner"]["wall_s"])
        runs.append(pair)
    chosen = {run[tool]["choice_name"]: run[tool]["choice"]
              for run in runs for tool in ("clmodes", "kernel_tuner")}
    log(f"  n={n} re-measuring {len(chosen)} chosen configs, {args.rounds} rounds")
    times = sides.remeasure(setup["client"], prob, chosen, args.rounds)
    return {"n": n, "runs": runs, "remeasured": times}


def matmul_kind() -> str:
    """What the MLP's matmul tunes: a space or hand-written candidates (as checked out,
    and as $KERNELS_CL_MATMUL selects: the tunable the workload calls)."""
    import importlib

    tunable = importlib.import_module("kernels_cl.matmul").tunable("float32")
    if getattr(tunable, "space", None) is not None:
        return f"a space of {len(tunable.space)} configs (budget {tunable.budget})"
    return f"{len(tunable.candidates)} hand-written candidates"


def run_mlp(size: int, log) -> dict:
    """warm at S and 8S, each against one cold execution at that size (fresh processes)."""
    import bench_warm

    spec = bench_warm.choose_workload("mlp")
    scratch = Path(tempfile.mkdtemp(prefix="clmodes-bench-space-mlp-"))
    figures: dict[str, object] = {"workload": spec["workload"], "matmul": matmul_kind()}
    try:
        for label, rows in (("S", size), ("8S", 8 * size)):
            cold = bench_warm.child("run", spec, rows, Path(tempfile.mkdtemp(dir=scratch)),
                                    probes=1)
            warm = bench_warm.child("warm", spec, rows, Path(tempfile.mkdtemp(dir=scratch)))
            figures[label] = {
                "rows": rows,
                "cold_inside_s": cold["inside_s"], "cold_wall_s": cold["process_wall_s"],
                "execution_s": min(cold["probes_s"]),
                "warm_inside_s": warm["inside_s"], "warm_wall_s": warm["process_wall_s"],
                "ratio_warm_over_cold_inside": warm["inside_s"] / cold["inside_s"],
                "ratio_warm_over_cold_wall": warm["process_wall_s"] / cold["process_wall_s"],
            }
            log(f"  MLP {label} ({rows} rows): warm {warm['inside_s']:.1f} s, cold "
                f"{cold['inside_s']:.1f} s (steady execution {min(cold['probes_s']):.2f} s)")
    finally:
        import shutil
        shutil.rmtree(scratch, ignore_errors=True)
    return figures


def set_up(log, kernel_tuner, check: bool = True) -> dict:
    import clmodes
    import kt_harness
    import space_sides as sides
    from kernels_cl.gemm import GEMM_SPACE

    client = clmodes.client()
    stream = client.stream("bench-space")
    where = kt_harness.device_indices(client.device.cl_device)
    log(f"device: {client.device.label}")
    verified = (sides.check_kernel_tuner(kernel_tuner, where, sides.problem(stream, 96),
                                         GEMM_SPACE) if check else 0)
    return {"client": client, "stream": stream, "where": where, "kt": kernel_tuner,
            "builds": kt_harness.BuildCounter(), "kt_verified_configs": verified,
            "kt_version": kernel_tuner.__version__}


def run_device(args) -> int:
    log = benchlib.progress_logger(args.quiet)
    if _CACHE_DIR is None or os.environ.get("POCL_KERNEL_CACHE") != "0":
        log("warning: not run as a script; PoCL's kernel cache or the store may be warm")
    started = time.perf_counter()
    load_before = benchlib.loadavg()
    import kt_harness

    kernel_tuner = kt_harness.import_kernel_tuner("bench_space")
    if kernel_tuner is None:
        return 2
    setup = set_up(log, kernel_tuner, check=not (args.no_tune or args.smoke))
    sizes = [] if args.no_tune else [run_size(setup, n, args, log) for n in args.size_list]
    log(f"tuning part done in {time.perf_counter() - started:.0f} s, load {benchlib.loadavg()}")
    mlp = None
    if not args.no_mlp:
        try:
            mlp = run_mlp(args.mlp_size, log)
        except Exception as error:  # noqa: BLE001 - the tuning figures are still reported
            mlp = {"error": f"{type(error).__name__}: {str(error)[-2000:]}"}
            log(f"MLP part failed: {mlp['error']}")
    import clmodes
    from space_report import rate, table

    results = {
        "meta": {**benchlib.run_meta(setup["client"].device), "kernel_tuner": setup["kt_version"],
                 "kt_verified_configs": setup["kt_verified_configs"], "configs": args.configs,
                 "subspace": args.subspace, "subspace_fixed": SUBSPACES[args.subspace],
                 "kt_local": args.kt_local, "rounds": args.rounds, "seed": args.seed,
                 "quick": args.quick, "smoke": args.smoke, "loadavg_before": load_before,
                 "loadavg_after": benchlib.loadavg(),
                 "total_s": time.perf_counter() - started},
        "sizes": sizes,
        "mlp": mlp,
    }
    rate(results)
    print(table(results), flush=True)
    benchlib.write_json(args.json, results)
    clmodes.default_store().close()
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.devices:
        return run_devices(args)
    return run_device(args)


if __name__ == "__main__":
    sys.exit(main())
