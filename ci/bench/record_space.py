#!/usr/bin/env python
"""Record a measured GEMM subspace as a JSON fixture: every config's device time.

    python ci/bench/record_space.py OUT.json [--n 128] [--rounds 3]

What the strategy tests replay without OpenCL (`run_search` with the recorded times as
the measurer): every config of `FIXED`'s subspace of `kernels_cl.gemm.GEMM_SPACE` is
built in COMPILE_ONLY, then timed in interleaved rounds (`kt_harness`), the median kept;
a config that fails to build or run is recorded as null. Not a benchmark (it prints no
ratio), so it is not registered in suite.py. One device: $CLMODES_DEVICE.
"""

from __future__ import annotations

import benchlib

if __name__ == "__main__":
    benchlib.cold_caches()
    benchlib.temp_store("clmodes-record-space-")

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

# A subspace of GEMM_SPACE small enough to measure whole on a CPU runtime in minutes, and
# big enough (hundreds of configs, eight free parameters) that a search can be told apart
# from a random draw.
FIXED = {"EDGE": 0, "STRM": 1, "STRN": 1, "KWG": 32, "KWI": 4, "SA": 0, "SB": 0}


def record(n: int, rounds: int) -> dict:
    import clmodes
    import kt_harness
    import space_sides as sides
    from kernels_cl.gemm import GEMM_SPACE

    space = GEMM_SPACE.subspace(**FIXED)
    client = clmodes.client()
    stream = client.stream("record-space")
    prob = sides.problem(stream, n)
    launch = sides.gemm_launcher(sides.salted_source())
    a, b, c = prob.device
    configs = {space.name(cfg): cfg for cfg in space}
    started = time.perf_counter()
    failures: dict[str, str] = {}  # recorded as null: a config that fails to build or run
    measured = kt_harness.remeasure(stream, launch, configs, (a, b, c, n, n, n), rounds,
                                    warm_ups=0, failures=failures)
    for name, line in failures.items():
        print(f"{name}: {line}", file=sys.stderr)
    times: dict[str, float | None] = dict.fromkeys(failures)
    times.update({name: m["median_s"] for name, m in measured.items()})
    return {"device": client.device.label, "fingerprint": client.device.fingerprint.exact,
            "n": n, "rounds": rounds, "fixed": FIXED, "configs": len(configs),
            "seconds_to_record": time.perf_counter() - started,
            "loadavg": os.getloadavg(), "times_s": dict(sorted(times.items()))}


def main() -> int:
    parser = benchlib.parser(__doc__, json_help=None)
    parser.add_argument("out")
    parser.add_argument("--n", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    result = record(args.n, args.rounds)
    with open(args.out, "w") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")
    print(f"{result['configs']} configs on {result['device']} in "
          f"{result['seconds_to_record']:.0f} s, load {result['loadavg']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
