"""What the launch path's checks cost: the same clmodes launch with its buffer checks
(released buffers, buffers of another context) and with them switched off, beside the raw
pyopencl call, interleaved in one run; then a `pyopencl.array.Array` passed for the
pointer (its dtype checked against the declared type) beside pyopencl given its `.data`.
Every clmodes side also checks its sizes against the device (a set lookup once seen).

    python ci/bench/bench_launch_checks.py [--json OUT] [--quick|--smoke]

Uses `launch_paths.py`'s tiny kernel (one buffer, one int) and its gated (host side only)
and free-running measurements. The checks guard runtimes that follow bad handles (PoCL,
Oclgrind); on Intel's they are off already and both clmodes sides are the same code.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

benchlib.cold_caches(force=False)

import pyopencl.array as cla  # noqa: E402

import clmodes  # noqa: E402
from launch_paths import interleaved, make_sides, warm_up  # noqa: E402


def measure(sides, launchable, rounds: int, per_round: int, gated: bool) -> dict[str, list[float]]:
    guarded_slots = launchable.buffer_slots

    def checked(count: int) -> None:
        launchable.buffer_slots = guarded_slots
        sides.clm(count)

    def unchecked(count: int) -> None:
        launchable.buffer_slots = None
        try:
            sides.clm(count)
        finally:
            launchable.buffer_slots = guarded_slots

    times: dict[str, list[float]] = {"checked": [], "unchecked": [], "pyopencl": []}
    order = ((checked, sides.stream.queue, times["checked"]),
             (unchecked, sides.stream.queue, times["unchecked"]),
             (sides.direct, sides.queue, times["pyopencl"]))
    interleaved(sides, order, rounds, per_round, gated)
    return times


def measure_arrays(sides, rounds: int, per_round: int, gated: bool) -> dict[str, list[float]]:
    """An Array for the `float*`: clmodes checks its dtype and passes its buffer; a
    pyopencl user passes `array.data` (pyopencl refuses the Array itself)."""
    clm_array = cla.Array(sides.stream.queue, 64, "float32", data=sides.buf_clm)
    pcl_data = cla.Array(sides.queue, 64, "float32", data=sides.buf_pcl).data

    def clm(count: int) -> None:
        launch, kernel, n = sides.stream.launch, sides.kernel, sides.n
        for _ in range(count):
            launch(kernel, (64,), None, clm_array, n)

    def direct(count: int) -> None:
        knl, queue, n = sides.knl, sides.queue, sides.n
        for _ in range(count):
            knl(queue, (64,), None, pcl_data, n)

    times: dict[str, list[float]] = {"checked": [], "pyopencl": []}
    order = ((clm, sides.stream.queue, times["checked"]), (direct, sides.queue, times["pyopencl"]))
    interleaved(sides, order, rounds, per_round, gated)
    return times


def array_figures(times: dict[str, list[float]]) -> dict[str, float]:
    us = {name: statistics.median(t) * 1e6 for name, t in times.items()}
    return {"checked_us": us["checked"], "pyopencl_us": us["pyopencl"],
            "checked_over_pyopencl": benchlib.paired(times["checked"], times["pyopencl"]),
            "best_checked_over_pyopencl": min(times["checked"]) / min(times["pyopencl"])}


def figures(times: dict[str, list[float]]) -> dict[str, float]:
    def paired(a: str, b: str) -> float:
        return benchlib.paired(times[a], times[b])

    us = {name: statistics.median(t) * 1e6 for name, t in times.items()}
    best = {name: min(t) * 1e6 for name, t in times.items()}  # what load did not inflate
    return {"checked_us": us["checked"], "unchecked_us": us["unchecked"],
            "pyopencl_us": us["pyopencl"],
            "checked_over_pyopencl": paired("checked", "pyopencl"),
            "unchecked_over_pyopencl": paired("unchecked", "pyopencl"),
            "checked_over_unchecked": paired("checked", "unchecked"),
            "best_round_us": best,
            "best_checked_over_pyopencl": best["checked"] / best["pyopencl"],
            "best_checked_over_unchecked": best["checked"] / best["unchecked"]}


def main(argv: list[str] | None = None) -> int:
    parser = benchlib.parser(__doc__, quick_help="fewer launches",
                             smoke_help="seconds (ci/bench/run --smoke)")
    args = parser.parse_args(argv)
    load_before = benchlib.loadavg_1min()
    client = clmodes.client()
    sides = make_sides(client)
    warm_up(sides)
    launchable = client.server.ready(sides.kernel)
    launches, rounds = (400, 4) if args.smoke else (4000, 8) if args.quick else (40000, 80)
    per_round = launches // rounds
    results = {"device": client.device.label, "guarded": launchable.buffer_slots is not None,
               "launches_per_side": launches, "rounds": rounds}
    for name, gated in (("free_running", False), ("host_side", True)):
        results[name] = figures(measure(sides, launchable, rounds, per_round, gated))
        results[f"array_{name}"] = array_figures(measure_arrays(sides, rounds, per_round, gated))
    results["load_1min"] = [load_before, benchlib.loadavg_1min()]
    print(f"{results['device']} (checks {'on' if results['guarded'] else 'off: Intel'}), "
          f"{launches} launches per side{benchlib.load_text(load_before, results['load_1min'][1])}")
    for name in ("free_running", "host_side"):
        f = results[name]
        print(f"  {name:<13} checked {f['checked_us']:.2f} us, unchecked {f['unchecked_us']:.2f} us, "
              f"pyopencl {f['pyopencl_us']:.2f} us; checked/pyopencl {f['checked_over_pyopencl']:.3f}x, "
              f"unchecked/pyopencl {f['unchecked_over_pyopencl']:.3f}x, "
              f"checked/unchecked {f['checked_over_unchecked']:.3f}x (paired medians); "
              f"best rounds: checked/pyopencl {f['best_checked_over_pyopencl']:.3f}x, "
              f"checked/unchecked {f['best_checked_over_unchecked']:.3f}x")
    for name in ("free_running", "host_side"):
        f = results[f"array_{name}"]
        print(f"  {name:<13} Array argument: clmodes {f['checked_us']:.2f} us, pyopencl "
              f"{f['pyopencl_us']:.2f} us; {f['checked_over_pyopencl']:.3f}x (paired medians), "
              f"best rounds {f['best_checked_over_pyopencl']:.3f}x")
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
