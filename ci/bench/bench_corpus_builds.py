"""Real libraries' kernels (tests/corpus/real: ArrayFire, CLBlast, clpeak, pyopencl's
complex elementwise), cold: builds per group and batched against separate builds.

Per group, side by side in one run, each side on fresh salts: *separate* builds every
program with its own `pyopencl.Program(...).build()` and creates its kernels, as the
library would; *batched* queues every kernel on clmodes' compile queue and obtains them
with one flush, counting its builds (`compilation.builds`; the compiler's macro probe,
`clmodes.compiler_probe`, is no kernel build and is counted apart as `probes`). The first
batched round pays the probe (its answers are then in the store, as in any later process);
it is reported as `first_batched_s`, and the ratio uses the later rounds' median.
PoCL's kernel cache and pyopencl's cache are off; the store is a throw-away one.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import benchlib

benchlib.cold_caches()
benchlib.temp_store("clmodes-bench-corpus-builds-")

import statistics  # noqa: E402

import pyopencl as cl  # noqa: E402

import clmodes  # noqa: E402
from clmodes import Kernel  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from corpus.real_libraries import LibraryCase, library_cases  # noqa: E402
from corpus_compile import build_batched, plain_context, runnable, salted  # noqa: E402

def built_entries(ctx: cl.Context, device: cl.Device, case: LibraryCase) -> tuple[str, ...]:
    """The entry points this device's build of the program has (clpeak's half and int8
    kernels sit behind extension guards). None: the program does not build here at all
    (clpeak's int8 program on Intel's CPU runtime, which defines the extension macro but
    not `dot_acc_sat`: clpeak skips it too)."""
    try:
        program = cl.Program(ctx, case.source).build(options=case.build_options(), devices=[device])
    except cl.Error:
        return ()
    names = set(program.get_info(cl.program_info.KERNEL_NAMES).split(";"))
    return tuple(e for e in case.entries if e in names)


def separate(ctx: cl.Context, device: cl.Device, cases: list[LibraryCase]) -> float:
    started = time.perf_counter()
    for case, source in salted(cases):
        program = cl.Program(ctx, source).build(options=case.build_options(), devices=[device])
        for entry in case.entries:
            cl.Kernel(program, entry)
    return time.perf_counter() - started


def batched(client: clmodes.Client, cases: list[LibraryCase]) -> tuple[float, int, int]:
    """(seconds, kernel builds, probe builds)."""
    probe = getattr(client.server, "compiler", None)  # absent before the compiler probe
    probes_before = probe.probes if probe is not None else 0
    elapsed, builds = build_batched(client, lambda: [
        Kernel(source, entry, defines=dict(case.defines), options=case.options)
        for case, source in salted(cases) for entry in case.entries])
    probes = (probe.probes if probe is not None else 0) - probes_before
    return elapsed, builds, probes


def run(client: clmodes.Client, reps: int, per_group: int | None, log) -> dict[str, dict]:
    device = client.device.cl_device
    ctx = plain_context(device)  # the separate side is plain pyopencl
    groups: dict[str, list[LibraryCase]] = {}
    for case in library_cases():
        if not runnable(case, device):
            continue
        entries = built_entries(ctx, device, case)
        if entries:
            groups.setdefault(case.group, []).append(LibraryCase(
                case.group, case.label, case.source, entries, case.defines, case.options,
                case.requires))
    results: dict[str, dict] = {}
    for name, cases in groups.items():
        cases = cases[:per_group] if per_group else cases
        seps, bats, builds, probes, first = [], [], 0, 0, None
        for round_index in range(reps + 1):
            elapsed, builds, made = batched(client, cases)
            probes += made
            if round_index == 0:
                first = elapsed
            else:
                bats.append(elapsed)
                seps.append(separate(ctx, device, cases))
        kernels = sum(len(c.entries) for c in cases)
        sep, bat = statistics.median(seps), statistics.median(bats)
        log(f"  {name}: {len(cases)} programs, {kernels} kernels, {builds} builds "
            f"({probes} probes); separate {sep:.2f} s, batched {bat:.2f} s "
            f"(first, with the probe: {first:.2f} s)")
        results[name] = {"programs": len(cases), "kernels": kernels, "builds": builds,
                         "probes": probes, "separate_s": sep, "batched_s": bat,
                         "first_batched_s": first, "ratio_separate_over_batched": sep / bat}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = benchlib.parser(__doc__, quiet=True, reps=2,
                             smoke_help="seconds: 3 programs per group, one round")
    args = parser.parse_args(argv)
    log = benchlib.progress_logger(args.quiet)
    load_before = benchlib.warn_if_loaded(log)
    client = clmodes.client()
    log(f"device: {client.device.label}")
    started = time.perf_counter()
    groups = run(client, 1 if args.smoke else args.reps, 3 if args.smoke else None, log)
    results = {"meta": {**benchlib.run_meta(client.device), "smoke": args.smoke,
                        "total_s": time.perf_counter() - started,
                        "loadavg_1min_before": load_before,
                        "loadavg_1min_after": benchlib.loadavg_1min()},
               "groups": groups}
    for name, row in groups.items():
        print(f"{name:10s} {row['kernels']:4d} kernels in {row['builds']:3d} builds; "
              f"separate/batched {row['ratio_separate_over_batched']:.2f}")
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
