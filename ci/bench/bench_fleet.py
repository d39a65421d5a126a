#!/usr/bin/env python
"""Fleet benchmark: `clmodes fleet warm` over a two-node fleet against the two
single-machine `clmodes warm` runs it replaces, measured side by side in one run.

    python ci/bench/bench_fleet.py [--reps N] [--workload MODULE:FUNCTION] [--json OUT]
    python ci/bench/bench_fleet.py --spread [--reps N] [--workload ...] [--json OUT]
    python ci/bench/bench_fleet.py --smoke [--json OUT]

The fleet is a real Ray cluster on this machine inside a network and PID namespace of
its own (`tests/support/fleet_cluster.py`): a PoCL-only head and an Intel-only worker,
one CPU each. The workload defaults to `support.fleet_workloads:small` (13 kernels, one
tuned key). Per repetition, interleaved so background load hits every kind alike (each
figure is the median over reps; every process has PoCL's and pyopencl's caches off and
a fresh store):

- single Intel, single PoCL: `clmodes warm W --device ...`, process wall, inside the
  namespace (same machine, same load), no Ray;
- fleet wall: `clmodes fleet warm W -o OUT`, process wall (CLI start, connect,
  discovery, warms, merge);
- fleet tasks: the report's `seconds`, tasks submitted to bundle written;
- overhead (Ray round trip) = fleet tasks - the slowest target's own seconds (each
  target's seconds are its job on the node: a fresh Python, warm, export);
- fixed = fleet wall - fleet tasks (connect to the cluster and discover its devices).

Ratios: fleet wall / (single sum) and fleet wall / (single max). On this machine both
nodes share the same 2 cores, so the two warms in parallel are not faster than one
after the other; on a real fleet every node has its own device and cores, and the time
is about the slowest device + the fixed cost + the overhead.

`--spread`: one tune spread over identical devices against the same tune on one. The
fleet is a head with no OpenCL device and two Intel-only workers; the workload defaults
to `support.fleet_workloads:gemm_space` (one GEMM key, local search, 16 configs in
generations of 8). Per repetition, interleaved: `fleet warm W` (one Intel target: one
node measures all 16) and `fleet warm W --spread` (both nodes, 8 each). Figures: the
Intel job's seconds on its node (fresh Python, warm, export) plain and spread (the
slowest member), their ratio (the speed-up of the added device), each wall, and the
seconds a spread job spent joining the cluster to reach its ledger. On this machine
both "devices" are Intel's CPU runtime on the same 2 cores, so two nodes measuring at
once compete for them: the figure shows the protocol's cost, not a real device's gain.
`--pin` gives each Intel node one core of its own (`taskset`, inherited by its raylet,
workers and jobs; Intel's runtime then sees a one-core device): closer to two devices,
though the driver, the head and memory bandwidth are still shared.
"""

from __future__ import annotations

import benchlib

benchlib.cold_caches()

import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(benchlib.ROOT / "tests"))
from support.fleet_cluster import FleetCluster  # noqa: E402
from support.subprocesses import environment  # noqa: E402

DEVICES = {"intel": "intel", "pocl": "portable"}


def single(cluster: FleetCluster, workload: str, selector: str, store: Path) -> float:
    answer = cluster.ask("run", argv=benchlib.clmodes_cli("warm", workload, "--device",
                                                          selector, "--json"),
                         env={"CLMODES_CACHE_DIR": str(store)})
    if answer["rc"] != 0:
        raise SystemExit(f"clmodes warm --device {selector} failed: {answer['stderr'][-2000:]}")
    return answer["seconds"]


def fleet(cluster: FleetCluster, workload: str, out: Path) -> dict:
    answer = cluster.cli("fleet", "warm", workload, "-o", str(out), "--json")
    if answer["rc"] != 0:
        raise SystemExit(f"clmodes fleet warm failed: {answer['stderr'][-2000:]}")
    report = json.loads(answer["stdout"])
    slowest = max(t["seconds"] for t in report["targets"])
    return {"fleet_wall": answer["seconds"], "fleet_tasks": report["seconds"],
            "slowest_target": slowest, "overhead": report["seconds"] - slowest,
            "fixed": answer["seconds"] - report["seconds"]}


def rep(cluster: FleetCluster, workload: str, scratch: Path) -> dict:
    figures = {f"single_{name}": single(cluster, workload, selector,
                                        Path(tempfile.mkdtemp(dir=scratch)))
               for name, selector in DEVICES.items()}
    figures.update(fleet(cluster, workload, Path(tempfile.mkdtemp(dir=scratch)) / "out.clmodes"))
    figures["single_sum"] = figures["single_intel"] + figures["single_pocl"]
    figures["single_max"] = max(figures["single_intel"], figures["single_pocl"])
    figures["fleet_over_sum_ratio"] = figures["fleet_wall"] / figures["single_sum"]
    figures["fleet_over_max_ratio"] = figures["fleet_wall"] / figures["single_max"]
    return figures


def spread_rep(cluster: FleetCluster, workload: str, scratch: Path) -> dict:
    figures: dict[str, float] = {}
    for name, extra in (("plain", ()), ("spread", ("--spread",))):
        out = Path(tempfile.mkdtemp(dir=scratch)) / "out.clmodes"
        answer = cluster.cli("fleet", "warm", workload, "-o", str(out), "--json", *extra)
        if answer["rc"] != 0:
            raise SystemExit(f"clmodes fleet warm {' '.join(extra)} failed (status "
                             f"{answer['rc']}): {answer['stdout'][-2000:]}"
                             f"{answer['stderr'][-2000:]}")
        report = json.loads(answer["stdout"])
        figures[f"{name}_wall"] = answer["seconds"]
        if name == "plain":
            figures["plain_job"] = max(t["seconds"] for t in report["targets"])
        else:
            [group] = report["groups"]
            figures["spread_job"] = max(n["seconds"] for n in group["nodes"])
            figures["spread_join"] = max(n["join_s"] for n in group["nodes"])
            for n in group["nodes"]:
                figures[f"spread_configs_rank{n['rank']}"] = n["configs"]
    figures["speedup_ratio"] = figures["plain_job"] / figures["spread_job"]
    figures["wall_speedup_ratio"] = figures["plain_wall"] / figures["spread_wall"]
    return figures


def main() -> int:
    parser = benchlib.parser(__doc__, reps=3, smoke_help="arguments and set-up only (is a test "
                             "cluster usable here?), no cluster started: starting one takes "
                             "minutes (ci/bench/run --smoke)")
    parser.add_argument("--workload", default=None,
                        help="default: support.fleet_workloads:small (:gemm_space with --spread)")
    parser.add_argument("--spread", action="store_true",
                        help="one tune spread over two Intel nodes against one node")
    parser.add_argument("--pin", action="store_true",
                        help="with --spread: pin each Intel node to a CPU of its own (taskset)")
    args = parser.parse_args()
    reason = FleetCluster.unusable()
    if args.smoke:
        print(f"bench_fleet --smoke: test cluster {'unusable: ' + reason if reason else 'usable'}")
        benchlib.write_json(args.json, {"smoke": "setup", "cluster_unusable": reason})
        return 0
    if reason:
        raise SystemExit(f"bench_fleet: {reason}")
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    scratch = Path(tempfile.mkdtemp(prefix="clf-", dir="/tmp"))
    workload = args.workload or ("support.fleet_workloads:gemm_space" if args.spread
                                 else "support.fleet_workloads:small")
    if args.spread:
        names = ("intel-a@0", "intel-b@1") if args.pin else ("intel-a", "intel-b")
        cluster = FleetCluster(scratch, names, head="none")
    else:
        cluster = FleetCluster(scratch, ("intel-a",))
    measure = spread_rep if args.spread else rep
    try:
        cluster.start(environment())
        reps = [measure(cluster, workload, scratch) for _ in range(args.reps)]
    finally:
        cluster.close()
        shutil.rmtree(scratch, ignore_errors=True)
    medians = {k: statistics.median(r[k] for r in reps) for k in reps[0]}
    if args.spread:  # ratios of the medians, as the README quotes them
        medians["speedup_ratio"] = medians["plain_job"] / medians["spread_job"]
        medians["wall_speedup_ratio"] = medians["plain_wall"] / medians["spread_wall"]
    nodes = "a head without OpenCL, 2 Intel nodes" if args.spread else "2 nodes (PoCL, Intel)"
    print(f"fleet warm{' --spread' if args.spread else ''} of {workload}, {nodes}, "
          f"{args.reps} reps, median; load before: {load}")
    for key, value in medians.items():
        unit = "" if key.endswith("ratio") or "configs" in key else " s"
        print(f"  {key:<22} {value:8.3f}{unit}")
    # Ratios once (the medians): `ci/bench/run` collects every figure named a ratio.
    samples = [{k: v for k, v in r.items() if not k.endswith("ratio")} for r in reps]
    benchlib.write_json(args.json, {"load": load, "median": medians, "samples": samples},
                        newline=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
