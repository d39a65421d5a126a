#!/usr/bin/env python
"""What recording last uses costs a warm second process: `warm_workload` run in EXECUTE
from a warmed store, with use notes on and off, side by side.

    python ci/bench/bench_last_use.py [--json OUT] [--reps N] [--size N] [--smoke]

Once: `clmodes warm warm_workload:workload` into a fresh store on the device
($CLMODES_DEVICE, else the default). Then per rep, in turn (rotated, so background load
hits both alike), a fresh process on that store: notes on (what every process does) and
off (`Store.uses.enabled = False`). Each process times, from its first launch, the
workload (its loads of stored binaries and reads of stored winners note their uses) plus
the write those notes cost at exit (`UseNotes.flush(everything_now=True)`, what the exit
handler runs, timed here so it is counted). Prints the medians, their difference and
ratio, the flush alone, and the cost of one `note()` on an entry already noted (what a
process pays per read after the first). `--smoke`: 4096 elements, one rep.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import benchlib  # noqa: E402

CHILD = """
import json, sys, time
import clmodes
import warm_workload
from clmodes.store.footprint import EXIT_WAIT_S
store = clmodes.default_store()
store.uses.enabled = sys.argv[1] == "on"
stream = clmodes.client().stream()
started = time.perf_counter()
with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE):
    warm_workload.workload(int(sys.argv[2]))
    stream.finish()
ran = time.perf_counter() - started
pending = len(store.uses.statements(everything_now=True)[0])
flushed = time.perf_counter()
store.uses.flush(EXIT_WAIT_S, everything_now=True)
flush_s = time.perf_counter() - flushed
repeat = 20000
noted = time.perf_counter()
for _ in range(repeat):
    store.uses.note("binary", ("bench", "noted-once"))
note_s = (time.perf_counter() - noted) / repeat
print(json.dumps({"total_s": ran + flush_s, "flush_s": flush_s, "notes": pending,
                  "note_s": note_s}))
"""


def child(store: Path, side: str, size: int) -> dict[str, float]:
    return benchlib.child_json(benchlib.python(CHILD, side, size), f"the notes-{side} child",
                               benchlib.child_env(store=store))


def main() -> None:
    args_parser = benchlib.parser(__doc__, reps=7, smoke_help="seconds (ci/bench/run --smoke)")
    args_parser.add_argument("--size", type=int, default=1 << 16)
    args = args_parser.parse_args()
    if args.smoke:
        args.reps, args.size = 1, 4096
    store = Path(tempfile.mkdtemp(prefix="clmodes-bench-last-use-"))
    load_before = benchlib.loadavg_1min()
    benchlib.run_child(benchlib.clmodes_cli("warm", "warm_workload:workload"), "clmodes warm",
                       env=benchlib.child_env(store=store, WARM_BENCH_SIZE=str(args.size)),
                       echo=True)
    runs = benchlib.rounds(["on", "off"], args.reps, lambda side, _: child(store, side, args.size))
    load_after = benchlib.loadavg_1min()
    median = {side: statistics.median(r["total_s"] for r in found) for side, found in runs.items()}
    results = {
        "reps": args.reps, "size": args.size,
        "notes_per_process": runs["on"][0]["notes"],
        "on_s": median["on"], "off_s": median["off"],
        "difference_s": median["on"] - median["off"],
        "on_over_off_ratio": median["on"] / median["off"],
        "flush_s": statistics.median(r["flush_s"] for r in runs["on"]),
        "run_on_s": statistics.median(r["total_s"] - r["flush_s"] for r in runs["on"]),
        "run_off_s": statistics.median(r["total_s"] - r["flush_s"] for r in runs["off"]),
        "on_samples_s": [r["total_s"] for r in runs["on"]],
        "off_samples_s": [r["total_s"] for r in runs["off"]],
        "note_again_s": statistics.median(r["note_s"] for r in runs["on"]),
        "load": [load_before, load_after],
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    print(f"warm second process, {results['notes_per_process']} entries used, "
          f"{args.reps} reps{benchlib.load_text(load_before, load_after)}:")
    print(f"  notes on  {median['on'] * 1e3:8.2f} ms (workload + the write at exit)")
    print(f"  notes off {median['off'] * 1e3:8.2f} ms")
    print(f"  the workload alone: on {results['run_on_s'] * 1e3:.2f} ms, off "
          f"{results['run_off_s'] * 1e3:.2f} ms")
    print(f"  on/off ratio {results['on_over_off_ratio']:.3f}, difference "
          f"{results['difference_s'] * 1e3:+.2f} ms; the write at exit "
          f"{results['flush_s'] * 1e3:.2f} ms; a note on an entry already noted "
          f"{results['note_again_s'] * 1e9:.0f} ns")
    benchlib.write_json(args.json, results)


if __name__ == "__main__":
    main()
