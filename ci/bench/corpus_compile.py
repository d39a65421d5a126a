"""Cold compile of the batching corpus (tests/corpus): one build per kernel against clmodes.

Part of `bench_core.py`. Each corpus group (library-style programs: CLBlast, ArrayFire,
pyopencl's headers, generated code, the batching patterns) is obtained twice from fresh
sources: every case built with its own `pyopencl.Program(...).build()` plus
`pyopencl.Kernel`, as plain pyopencl would, and all cases queued on clmodes' compile queue
and obtained with one flush. The sides alternate, each on new salts; the caller has turned
PoCL's kernel cache and pyopencl's cache off. Also reported: the preprocessing cost, the
time `batch.plan` takes to prepare the units (on another new salt), as a fraction of the
batched time.
"""

from __future__ import annotations

import statistics
import sys
import time

import pyopencl as cl

import clmodes
from benchlib import ROOT, salt_counter
from clmodes import Kernel
from clmodes.batch import plan
from clmodes.batch.limits import max_units

sys.path.insert(0, str(ROOT / "tests"))
from corpus import CASES, Case  # noqa: E402

_salts = salt_counter()


def plain_context(device: cl.Device) -> cl.Context:
    """A context of the raw side's own: on a context clmodes manages, pyopencl's
    `Program.build` goes through clmodes (`clmodes.pyopencl_hooks`), which would make the
    alternative clmodes too."""
    return cl.Context([device])


def runnable(case, device: cl.Device) -> bool:
    """Whether `device` has what a corpus case (or a library case) requires."""
    extensions = device.extensions.split()
    return (("fp64" not in case.requires or "cl_khr_fp64" in extensions)
            and ("fp16" not in case.requires or "cl_khr_fp16" in extensions)
            and ("images" not in case.requires or bool(device.image_support)))


def salted(cases: list) -> list[tuple]:
    """Each case with its source made new to every cache (one new salt for them all)."""
    salt = next(_salts)
    return [(case, f"/* bench salt {salt} */\n{case.source}") for case in cases]


def separate(ctx: cl.Context, device: cl.Device, cases: list[Case]) -> float:
    started = time.perf_counter()
    for case, source in salted(cases):
        program = cl.Program(ctx, source).build(options=case.build_options(), devices=[device])
        cl.Kernel(program, case.name)
    return time.perf_counter() - started


def _kernels(cases: list[Case]) -> list[Kernel]:
    return [Kernel(source, case.name, defines=case.defines, options=case.options)
            for case, source in salted(cases)]


def batched(client: clmodes.Client, cases: list[Case]) -> tuple[float, int]:
    return build_batched(client, lambda: _kernels(cases))


def build_batched(client: clmodes.Client, make) -> tuple[float, int]:
    """Queue the kernels `make()` returns (timed too: making them is part of the side) and
    build them as clmodes batches them: (seconds, builds). Every kernel must be obtained."""
    collector = clmodes.StatisticsCollector()
    started = time.perf_counter()
    kernels = make()
    server = client.server
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        for kernel in kernels:
            server.queue_kernel(kernel)
        server.flush()
    elapsed = time.perf_counter() - started
    missing = [k.name for k in kernels if not server.is_obtained(k)]
    if missing:
        raise RuntimeError(f"batched side: not obtained: {missing[:5]}")
    return elapsed, clmodes.StatisticsReader(collector).statistics().compilation.builds


def plan_seconds(client: clmodes.Client, kernels: list[Kernel]) -> float:
    """Seconds `batch.plan` takes to prepare `kernels` into a batch's units (what batching
    adds in Python before the build; bench_core's preprocessing figure too)."""
    started = time.perf_counter()
    plan(kernels, client.server.macros_for, max_units(client.device.platform_name))
    return time.perf_counter() - started


def run_corpus(client: clmodes.Client, reps: int, log,
               groups_limit: int | None = None) -> dict[str, dict[str, object]]:
    """Each group (the first `groups_limit` of them, if given) and the whole corpus."""
    device = client.device.cl_device
    ctx = plain_context(device)
    groups: dict[str, list[Case]] = {}
    for case in CASES:
        if runnable(case, device):
            groups.setdefault(case.group, []).append(case)
    if groups_limit is not None:
        groups = dict(list(groups.items())[:groups_limit])
    results: dict[str, dict[str, object]] = {}
    everything = [c for cases in groups.values() for c in cases]
    for name, cases in [*groups.items(), ("whole corpus", everything)]:
        seps, bats, builds = [], [], 0
        for _ in range(reps):
            seps.append(separate(ctx, device, cases))
            elapsed, builds = batched(client, cases)
            bats.append(elapsed)
        prep = plan_seconds(client, _kernels(cases))
        sep, bat = statistics.median(seps), statistics.median(bats)
        log(f"  corpus {name}: {len(cases)} kernels, separate {sep:.2f} s, batched {bat:.2f} s "
            f"({builds} builds), preprocessing {prep * 1000:.1f} ms")
        results[name] = {
            "kernels": len(cases), "separate_s": sep, "batched_s": bat, "builds": builds,
            "preprocess_s": prep, "preprocess_per_unit_ms": prep * 1000 / len(cases),
            "ratio_separate_over_batched": sep / bat,
            "fraction_preprocess_of_batched": prep / bat,
        }
    return results
