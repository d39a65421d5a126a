#!/usr/bin/env python
"""Existing pyopencl code, cold against warmed: time to first result in a fresh process.

    python ci/bench/bench_pyopencl_code.py [--json OUT] [--reps N] [--device SELECTOR]

The workload (`workload()` below) is plain pyopencl-array code written without clmodes
in mind: array arithmetic, comparisons, `where`, `take`, `concatenate`, `cla.sum` /
`cla.max` / `cla.dot`, an `ElementwiseKernel`, a `ReductionKernel`, an
`InclusiveScanKernel` and complex arithmetic; 12 distinct user-visible operations that
pyopencl turns into more generated programs (it prints how many). Every side runs in a
fresh subprocess with PoCL's kernel cache off (POCL_KERNEL_CACHE=0); "time to first
result" runs from before `import pyopencl` to the result read back (`.get()`):

- pyopencl:          the workload on its own context, pyopencl's disk cache off
                     (PYOPENCL_NO_CACHE=1): one build per program, pyopencl's usual cold path;
- pyopencl cached:   the same with pyopencl's disk cache on, in a directory a previous run
                     filled (what pyopencl alone offers a second process on this machine);
- clmodes cold:      the workload on clmodes' context, fresh store;
- clmodes warm:      `clmodes.warm(workload)`, fresh store (what a build machine pays once);
- clmodes warmed:    the workload in a fresh process on the store that warm filled.

Builds are counted in each process at the lowest level (`pyopencl._cl._Program.build` of
a program made from source), whoever asked. The ratio reported is pyopencl / clmodes
warmed, medians over reps. The load average is printed with the figures.
"""

from __future__ import annotations

import benchlib

import os  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402

CHILD = r'''
import time, json, sys, os
started = time.perf_counter()
import numpy as np
import pyopencl as cl, pyopencl._cl as _cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import InclusiveScanKernel
builds = []
real = _cl._Program.build
def counting(program, *a, **k):
    if program.kind() == _cl.program_kind.SOURCE:
        builds.append(1)
    return real(program, *a, **k)
_cl._Program.build = counting

def workload(context, queue):
    n = 1 << 16
    x = cla.to_device(queue, np.linspace(0, 1, n, dtype=np.float32))
    y = cla.to_device(queue, (np.arange(n) % 13).astype(np.float32))
    a = (x * 2 + y) / (y + 1) - x ** 2
    b = cla.if_positive(a - 0.5, a, -a)
    picked = cla.take(b, cla.arange(queue, 0, n, 7, dtype=np.int32))
    both = cla.concatenate((picked, x[:100]))
    lin = ElementwiseKernel(context, "float *x, float *y, float *z",
                            "z[i] = x[i] * y[i] + sin(x[i])", "bench_lin")
    z = cla.empty_like(x)
    lin(x, y, z)
    rms = ReductionKernel(context, np.float32, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*x[i]", arguments="__global const float *x")
    counts = cla.to_device(queue, (np.arange(n) % 5).astype(np.int32))
    InclusiveScanKernel(context, np.int32, "a+b", neutral="0")(counts)
    c = x.astype(np.complex64) * (1 + 2j) + y.astype(np.complex64)
    parts = [cla.sum(a), cla.max(b), cla.dot(x, y), rms(z), cla.sum(both),
             cla.sum(abs(c)), cla.sum((x > y).astype(np.float32)), counts[-1:]]
    return [p.get() for p in parts]

kind = sys.argv[1]
if kind.startswith("pyopencl"):
    # The device clmodes would list (the same ICD registration: clmodes.icd), and no
    # client: the hooks are installed with the first one, so this side is pyopencl alone.
    import clmodes
    from clmodes import pyopencl_hooks
    want = os.environ["CLMODES_DEVICE"].lower()
    device = next(d for d in clmodes.devices() if want in d.label.lower())
    context = cl.Context([device.cl_device])
    result = workload(context, cl.CommandQueue(context))
    assert not pyopencl_hooks.installed()
else:
    import clmodes
    client = clmodes.client()
    queue = client.stream().queue
    if kind == "clmodes warm":
        stats = clmodes.warm(lambda: workload(client.context, queue))
        result = None
    else:
        result = workload(client.context, queue)
elapsed = time.perf_counter() - started
print(json.dumps({"seconds": elapsed, "builds": len(builds),
                  "result": None if result is None else [np.asarray(r).tobytes().hex() for r in result]}))
'''

SIDES = ("pyopencl", "pyopencl cached", "clmodes cold", "clmodes warm", "clmodes warmed")


def child(kind: str, env: dict[str, str]) -> dict[str, object]:
    return benchlib.child_json(benchlib.python(CHILD, kind), kind, env, timeout=1200)


def one_rep(device: str) -> dict[str, dict[str, object]]:
    base = {**os.environ, "POCL_KERNEL_CACHE": "0", "CLMODES_DEVICE": device,
            "PYTHONWARNINGS": "ignore"}
    store = tempfile.mkdtemp(prefix="clmodes-bench-pcl-")
    pyopencl_cache = tempfile.mkdtemp(prefix="pyopencl-bench-cache-")
    cached = {**base, "PYOPENCL_NO_CACHE": "0", "XDG_CACHE_HOME": pyopencl_cache}
    cold_store = tempfile.mkdtemp(prefix="clmodes-bench-pcl-cold-")
    found = {"pyopencl": child("pyopencl", {**base, "PYOPENCL_NO_CACHE": "1"})}
    child("pyopencl cached", cached)  # fills pyopencl's disk cache
    found["pyopencl cached"] = child("pyopencl cached", cached)
    found["clmodes cold"] = child("clmodes cold", {**base, "CLMODES_CACHE_DIR": cold_store})
    found["clmodes warm"] = child("clmodes warm", {**base, "CLMODES_CACHE_DIR": store})
    found["clmodes warmed"] = child("clmodes warmed", {**base, "CLMODES_CACHE_DIR": store})
    return found


def main() -> None:
    parse = benchlib.parser(__doc__, reps=3, smoke_help="one rep (ci/bench/run --smoke)")
    parse.add_argument("--device", default=os.environ.get("CLMODES_DEVICE", "intel"),
                       help="a substring of 'platform / device' (default: intel)")
    args = parse.parse_args()
    if args.smoke:
        args.reps = 1
    before = benchlib.loadavg_1min()
    reps = []
    for index in range(args.reps):
        reps.append(one_rep(args.device))
        print(f"rep {index + 1}/{args.reps}: " + ", ".join(
            f"{k} {v['seconds']:.2f} s/{v['builds']} builds" for k, v in reps[-1].items()),
            flush=True)
    after = benchlib.loadavg_1min()
    summary = {side: {"seconds": statistics.median(r[side]["seconds"] for r in reps),
                      "builds": reps[-1][side]["builds"]} for side in SIDES}
    same = all(r["clmodes warmed"]["result"] == r["pyopencl"]["result"] == r["clmodes cold"]["result"]
               for r in reps)
    ratio = summary["pyopencl"]["seconds"] / summary["clmodes warmed"]["seconds"]
    print(f"device {args.device}; load {benchlib.load_text(before, after)}")
    for side in SIDES:
        print(f"  {side:16s} {summary[side]['seconds']:7.2f} s to first result, "
              f"{summary[side]['builds']:3d} source builds")
    print(f"pyopencl cold / clmodes warmed: {ratio:.1f}x faster to first result; "
          f"builds {summary['pyopencl']['builds']} (one per program) -> "
          f"{summary['clmodes warmed']['builds']}; same bytes as pyopencl: {same}")
    benchlib.write_json(args.json, {"device": args.device, "sides": summary, "ratio": ratio,
                                    "same_bytes": same, "load": [before, after]})


if __name__ == "__main__":
    main()
