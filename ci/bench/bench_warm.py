#!/usr/bin/env python
"""Warm-start benchmark: what `clmodes.warm(workload)` buys a fresh process, and what it costs.

    python ci/bench/bench_warm.py [--json OUT] [--reps N] [--size S] [--budget SECONDS]
                                  [--workload auto|builtin|MODULE:FUNC] [--no-pin-memory]
                                  [--smoke]

The workload: `kernels_cl.workloads.mlp` if that exists (`--workload auto`, the default;
S is its row count, $KERNELS_CL_BATCH, default 8192), else `ci/bench/warm_workload.py`
(`--workload builtin`: 16 stage kernels of one source with different defines, 2 tunables
with 6 and 4 candidates; 23 kernels, 2 tune keys; S is $WARM_BENCH_SIZE elements, default
2**18). Either default S executes long enough that 8S clearly takes longer (the
`execution_s` figure measures it; a note warns when it is too short).
With mlp one rep takes minutes (tuning 15 matmul candidates at 8S, PoCL's BINARIES), so
`--budget` usually stops it after one rep; the builtin workload fits ~2-3 reps.

Every measurement runs in a fresh subprocess with POCL_KERNEL_CACHE=0 (PoCL's own kernel
cache would make "cold" warm, docs/facts.md, Caches; `--pocl-cache` turns it on as users
have it, in a folder of each store's own, so a cold run starts with it empty and a warmed
run has what its warm put there) and PYOPENCL_NO_CACHE=1, and its own fresh
CLMODES_CACHE_DIR temporary directory, except the warmed runs, which reuse the directory
the warm before them filled. Times "inside" run from before `import clmodes` to the
result read back (`.get()`) or to `warm()` returning; "process wall" is the parent's
clock around the whole subprocess (interpreter start and exit included).

Per repetition (a rep runs every kind once, interleaved, so background load hits all
kinds alike; each figure is the median over reps):
- floor:        import clmodes + client + stream, nothing else (the least any run costs)
- cold S:       the workload once at size S under EXECUTE: compile + tune + execute
- warm S:       `clmodes.warm(workload)` at S, fresh store
- warmed S:     the workload once at S, fresh process, in the store warm S filled
- warm 8S:      `clmodes.warm(workload)` at 8S, fresh store
- cold 8S:      the workload once at 8S, fresh store
After its first result a cold run executes the workload `--probes` more times in the same
process: the fastest is "execution" (steady state: everything obtained, tuned, code
generated). That time is subtracted from its process wall.

(a) cold S vs warmed S (target: warmed >= 5x faster); (b) warm 8S vs warm S (target:
ratio <= 1.2); (c) warm 8S vs cold 8S; (d) warm against what a cold run pays beyond one
execution (its compiling and tuning; target <= 1.15), at S and 8S.

PoCL reports a global memory size that follows the host's memory state, and it drifted
between processes on a busy machine (3, 4 and 5 GiB within minutes). clmodes versions
that put the rounded size in the device fingerprint then miss a warmed store (newer ones
write "host memory" for CPU devices). By default every subprocess gets
POCL_MEMORY_LIMIT=2 (GiB), which pins the size (harmless where it is not fingerprinted);
`--no-pin-memory` measures without the pin. Every warmed run reports hit or MISS.
"""

from __future__ import annotations

import benchlib

# Every process this script starts inherits these (and so does this one).
benchlib.cold_caches()

import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from warm_report import compile_and_tune, ratio, summarize, table, verdicts  # noqa: E402

ROOT = benchlib.ROOT
DEFAULT_SIZE = 1 << 18  # warm_workload elements (execution time: `execution_s` of cold_S)
MLP_DEFAULT_BATCH = 8192  # mlp rows (likewise)
PIN_GIB = 2
BUILTIN = "warm_workload:workload"
MLP = "kernels_cl.workloads:mlp"

# Runs in each subprocess (`python -c`). Spec in $WARM_BENCH_CHILD (JSON).
CHILD = r'''
import time
t0 = time.perf_counter()
import clmodes
t_import = time.perf_counter() - t0
import importlib, inspect, json, os
import numpy as np
import clmodes.programs, clmodes.server, clmodes.tune.tunable

spec = json.loads(os.environ["WARM_BENCH_CHILD"])
timers = {}
inside_tune = [0]

def timed(owner, name, label):
    real = getattr(owner, name, None)
    if real is None:  # clmodes moved on: that part of the breakdown reads as 0
        timers.setdefault("missing_hooks", []).append(f"{owner.__name__}.{name}")
        return
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        if label == "tune_s":
            inside_tune[0] += 1
        try:
            return real(*args, **kwargs)
        finally:
            if label == "tune_s":
                inside_tune[0] -= 1
            key = "tune_" + label if inside_tune[0] and label != "tune_s" else label
            timers[key] = timers.get(key, 0.0) + time.perf_counter() - started
    setattr(owner, name, wrapper)

# build_s/load_s: outside tunes; tune_build_s/tune_load_s: inside them (part of tune_s)
timed(clmodes.server.DeviceServer, "_build", "build_s")        # Program.build from source
timed(clmodes.server.DeviceServer, "_load", "load_s")          # program from a stored binary
timed(clmodes.tune.tunable.Tunable, "_tune", "tune_s")         # a tune: gather, build, race
timed(clmodes.programs, "capture", "capture_s")                # reading BINARIES, storing them

def resolve(name):
    module, _, attr = name.partition(":")
    fn = getattr(importlib.import_module(module), attr)
    if not spec["pass_size"]:
        return fn
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if params:
        return lambda: fn(spec["size"])
    return fn

def read_back(result):
    if hasattr(result, "get"):
        result = result.get()
    if isinstance(result, (list, tuple)):
        result = [read_back(r) for r in result]
    return result

def checksum(result):
    """A position-weighted sum (a plain sum of softmax rows is always the row count)."""
    try:
        parts = result if isinstance(result, list) else [result]
        total = 0.0
        for p in parts:
            flat = np.asarray(p, dtype=np.float64).ravel()
            total += float(np.dot(flat, 1.0 + np.arange(flat.size) % 7))
        return total
    except (TypeError, ValueError):
        return None

def reference_error(result):
    """Max abs difference to the workload's `<name>_reference()`, if it has one."""
    module, _, attr = spec["workload"].partition(":")
    ref = getattr(importlib.import_module(module), attr + "_reference", None)
    if ref is None:
        return None
    try:
        expected = np.asarray(ref(), dtype=np.float64)
        return float(np.max(np.abs(np.asarray(result, dtype=np.float64) - expected)))
    except Exception as error:  # noqa: BLE001 - a report, not a test
        return repr(error)

workload = resolve(spec["workload"])
out = {"mode": spec["mode"], "import_s": t_import}
if spec["mode"] == "floor":
    clmodes.client().stream()
    out["inside_s"] = time.perf_counter() - t0
elif spec["mode"] == "run":
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        result = read_back(workload())
    out["inside_s"] = time.perf_counter() - t0
    out["statistics"] = clmodes.StatisticsReader(collector).statistics().as_dict()
    out["checksum"] = checksum(result)
    out.update(timers)
    probes = []
    for _ in range(spec["probes"]):
        started = time.perf_counter()
        read_back(workload())
        probes.append(time.perf_counter() - started)
    out["probes_s"] = probes
    started = time.perf_counter()
    out["reference_max_abs_error"] = reference_error(result)
    out["post_s"] = time.perf_counter() - started
elif spec["mode"] == "warm":
    passes = []
    def passing():
        started = time.perf_counter()
        try:
            return workload()
        finally:
            passes.append(time.perf_counter() - started)
    stats = clmodes.warm(passing)
    out["inside_s"] = time.perf_counter() - t0
    out["statistics"] = stats.as_dict()
    out["passes_s"] = passes
    out.update(timers)
device = clmodes.client().device
out["model"] = device.fingerprint.model
out["global_mem_size"] = int(device.cl_device.global_mem_size)
out["pocl_memory_limit"] = os.environ.get("POCL_MEMORY_LIMIT")
print("WARM_BENCH_RESULT " + json.dumps(out), flush=True)
'''


POCL_CACHE_FLAG = "BENCH_WARM_POCL_CACHE"  # set by --pocl-cache, read by `child`


class ChildFailed(RuntimeError):
    pass


def child(mode: str, spec: dict, size: int, cache_dir: Path, probes: int = 0,
          pin: bool = True) -> dict:
    """One fresh subprocess; its report plus the parent's wall time."""
    env = benchlib.child_env(store=cache_dir, drop=["POCL_MEMORY_LIMIT"], **{
        **benchlib.COLD, "WARM_BENCH_SIZE": str(size), spec["size_env"]: str(size),
        "WARM_BENCH_CHILD": json.dumps({**spec, "mode": mode, "size": size, "probes": probes}),
        **({"POCL_MEMORY_LIMIT": str(PIN_GIB)} if pin else {}),
        # --pocl-cache: PoCL's cache on, one folder per clmodes store
        **({"POCL_KERNEL_CACHE": "1", "POCL_CACHE_DIR": str(cache_dir / "pocl-cache")}
           if os.environ.get(POCL_CACHE_FLAG) else {})})
    started = time.perf_counter()
    # Not `benchlib.run_child`: a failed child raises ChildFailed, which bench_space's MLP
    # part reports and goes on from.
    proc = subprocess.run(benchlib.python(CHILD), env=env, capture_output=True,
                          text=True, timeout=900, cwd=ROOT)
    wall = time.perf_counter() - started
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("WARM_BENCH_RESULT ")]
    if proc.returncode != 0 or not lines:
        raise ChildFailed(f"{mode} at size {size} failed (rc {proc.returncode}):\n"
                          f"{proc.stderr[-4000:]}")
    out = json.loads(lines[-1][len("WARM_BENCH_RESULT "):])
    out["process_wall_s"] = wall - sum(out.get("probes_s", [])) - out.get("post_s", 0.0)
    out["size"] = size
    warnings = [ln for ln in proc.stderr.splitlines() if "warn" in ln.lower()]
    if warnings:
        out["stderr_warnings"] = warnings[-10:]
    return out


def choose_workload(requested: str) -> dict:
    """What to run: workload (MODULE:FUNC), size_env (the variable S is written to),
    pass_size (call FUNC(S) if it takes an argument), default_size, description."""
    builtin = {"workload": BUILTIN, "size_env": "WARM_BENCH_SIZE", "pass_size": False,
               "default_size": DEFAULT_SIZE, "size_unit": "elements",
               "description": "ci/bench/warm_workload.py (23 kernels, 2 tune keys)"}
    mlp = {"workload": MLP, "size_env": "KERNELS_CL_BATCH", "pass_size": False,
           "default_size": MLP_DEFAULT_BATCH, "size_unit": "rows (KERNELS_CL_BATCH)",
           "description": f"{MLP}: size = KERNELS_CL_BATCH, other KERNELS_CL_* at defaults"}
    if requested == "builtin":
        return builtin
    if requested == "mlp":
        return mlp
    if requested != "auto":
        return {"workload": requested, "size_env": "WARM_BENCH_SIZE", "pass_size": True,
                "default_size": DEFAULT_SIZE, "size_unit": "(FUNC(S) / $WARM_BENCH_SIZE)",
                "description": requested}
    probe = subprocess.run(
        benchlib.python("import kernels_cl.workloads as w; print(callable(getattr(w, 'mlp', None)))"),
        capture_output=True, text=True, cwd=ROOT, env=benchlib.child_env())
    if probe.returncode == 0 and probe.stdout.strip().endswith("True"):
        return mlp
    builtin["description"] += "; kernels_cl.workloads.mlp not found"
    return builtin


def loadavg() -> list[float] | None:
    load = benchlib.loadavg()
    return None if load is None else [round(x, 2) for x in load]


def one_rep(spec: dict, size: int, probes: int, pin: bool, scratch: Path,
            smoke: bool = False) -> dict:
    """Every kind once, each in a fresh process with a fresh store (warmed: the warm's);
    with `smoke`, the 8S kinds are the S runs again (not run: the figures are not
    measurements, only the machinery is exercised)."""
    big = 8 * size

    def fresh() -> Path:
        return Path(tempfile.mkdtemp(prefix="store-", dir=scratch))

    rep: dict[str, dict] = {}
    rep["floor"] = child("floor", spec, size, fresh(), pin=pin)
    rep["cold_S"] = child("run", spec, size, fresh(), probes=probes, pin=pin)
    warmed_dir = fresh()
    rep["warm_S"] = child("warm", spec, size, warmed_dir, pin=pin)
    rep["warmed_S"] = child("run", spec, size, warmed_dir, pin=pin)
    if smoke:
        rep["warm_8S"], rep["cold_8S"] = rep["warm_S"], rep["cold_S"]
        return rep
    rep["warm_8S"] = child("warm", spec, big, fresh(), pin=pin)
    rep["cold_8S"] = child("run", spec, big, fresh(), probes=probes, pin=pin)
    return rep


def parse_args(argv: list[str] | None):
    parser = benchlib.parser(__doc__,
                             smoke_help="seconds: the builtin workload at 4096 elements, one "
                                        "rep, no probes, no 8S runs (ci/bench/run --smoke)",
                             json_type=Path)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--size", type=int, default=None,
                        help=f"S: mlp rows (default {MLP_DEFAULT_BATCH}) or builtin elements "
                             f"(default {DEFAULT_SIZE})")
    parser.add_argument("--probes", type=int, default=2,
                        help="extra executions after a warmed run's first result")
    parser.add_argument("--budget", type=float, default=300.0,
                        help="stop adding reps when the next would end past this (seconds)")
    parser.add_argument("--workload", default="auto",
                        help="auto (kernels_cl.workloads:mlp if present, else builtin), "
                             "mlp, builtin, or MODULE:FUNC")
    parser.add_argument("--no-pin-memory", action="store_true")
    parser.add_argument("--pocl-cache", action="store_true",
                        help="PoCL's kernel cache on (its default), one folder per store: "
                             "cold runs start empty, a warmed run has its warm's")
    args = parser.parse_args(argv)
    if args.pocl_cache:
        os.environ[POCL_CACHE_FLAG] = "1"
    if args.smoke:
        args.workload, args.size, args.reps, args.probes = "builtin", 4096, 1, 0
    return args


def run_reps(spec: dict, size: int, args, pin: bool, notes: list[str]) -> list[dict]:
    """Up to --reps repetitions, in a scratch directory removed afterwards; stops early
    (with a note) when the next would end past --budget."""
    scratch = Path(tempfile.mkdtemp(prefix="clmodes-bench-warm-"))
    started = time.perf_counter()
    reps: list[dict] = []
    try:
        for i in range(args.reps):
            rep_started = time.perf_counter()
            reps.append(one_rep(spec, size, args.probes, pin, scratch, args.smoke))
            per_rep = time.perf_counter() - rep_started
            print(f"rep {i + 1}/{args.reps}: {per_rep:.1f} s (load {loadavg()})",
                  file=sys.stderr, flush=True)
            elapsed = time.perf_counter() - started
            if i + 1 < args.reps and elapsed + per_rep > args.budget:
                notes.append(f"stopped after {i + 1} of {args.reps} reps: the next would end "
                             f"past the {args.budget:.0f} s budget")
                break
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return reps


def add_notes(notes: list[str], medians: dict, checks: dict) -> None:
    if len(checks["global_mem_sizes_seen"]) > 1:
        notes.append(f"PoCL global memory differed between processes: "
                     f"{checks['global_mem_sizes_seen']} bytes")
    if medians["cold_S"].get("execution_s", 1) < 0.2:
        notes.append("execution at S is under 0.2 s: raise --size for (b) to mean much")


def ratios(m: dict) -> dict[str, float | None]:
    """The headline ratios (a), (b), (c) and the execution scaling, from the medians."""
    def both(tag: str, a: str, b: str) -> dict[str, float | None]:
        return {f"{tag}_inside": ratio(m[a]["inside_s"], m[b]["inside_s"]),
                f"{tag}_wall": ratio(m[a]["process_wall_s"], m[b]["process_wall_s"])}

    return {
        **both("a_cold_over_warmed", "cold_S", "warmed_S"),
        **both("b_warm8S_over_warmS", "warm_8S", "warm_S"),
        **both("c_warm8S_over_cold8S", "warm_8S", "cold_8S"),
        "execution_8S_over_S": ratio(m["cold_8S"].get("execution_s"),
                                     m["cold_S"].get("execution_s")),
        **{f"d_warm{size}_over_cold{size}_compile_tune": ratio(
            m[f"warm_{size}"]["inside_s"], compile_and_tune(m[f"cold_{size}"]))
           for size in ("S", "8S")},
    }



def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    spec = choose_workload(args.workload)
    size = args.size or spec["default_size"]
    pin = not args.no_pin_memory
    started = time.perf_counter()
    notes: list[str] = []
    load_before = loadavg()
    reps = run_reps(spec, size, args, pin, notes)
    total = time.perf_counter() - started

    medians = summarize(reps)
    checks = verdicts(reps)
    add_notes(notes, medians, checks)
    meta = {
        "device": reps[0]["floor"]["model"],
        "workload": spec["description"],
        "size_unit": spec["size_unit"],
        "size": size,
        "reps": len(reps),
        "smoke": args.smoke,
        "pin": f"POCL_MEMORY_LIMIT={PIN_GIB}" if pin else "none",
        "load_before": load_before,
        "load_after": loadavg(),
        "notes": notes,
    }
    text = table(medians, meta, checks)
    print(text)
    benchlib.write_json(args.json, {
        "meta": {**meta, "total_s": total, "python": platform.python_version(),
                 "cpus": os.cpu_count(), "workload_spec": spec},
        "medians": medians,
        "ratios": ratios(medians),
        "checks": checks,
        "reps": reps,
        "table": text,
    }, newline=False, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
