"""The one harness of the benchmarks that compare clmodes' tune with Kernel Tuner.

`bench_tune.py` (a 16-config matmul space) and `bench_space.py` (the GEMM space) run
both tools through these pieces, so both sides are set up, called, counted and
re-measured the same way in every comparison:

- `import_kernel_tuner`: Kernel Tuner (the `bench` extra), its logger quietened;
- `device_indices`: Kernel Tuner's (platform, device) of a pyopencl device;
- `tune`: one quiet `tune_kernel` call (OpenCL), timed;
- `valid`, `cost_s`: the results that ran and timed, and a summed cost field in seconds;
- `BuildCounter`: real `pyopencl.Program.build` calls (both tools build through it);
- `build_log`: clmodes' "built N units in S s" records during a block;
- `interleaved_device_times`: profiling-event times of configs in interleaved rounds,
  the one re-measurement both scripts rate each tool's choice by;
- `remeasure`: that re-measurement of configs launched through clmodes, every config
  built before any timing (`bench_space`, `bench_quality`, `record_space`).

Importing this module loads pyopencl: a script turns the caches off (`benchlib`) first.
"""

from __future__ import annotations

import contextlib
import logging
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping

import numpy as np
import pyopencl as cl


def import_kernel_tuner(script: str):
    """Kernel Tuner, quietened; None (with a hint on stderr) when it is not installed."""
    try:
        import kernel_tuner
    except ImportError:
        print(f"{script} needs Kernel Tuner: pip install -e '.[bench]'", file=sys.stderr)
        return None
    logging.getLogger("kernel_tuner").setLevel(logging.WARNING)
    return kernel_tuner


def device_indices(device: cl.Device) -> tuple[int, int]:
    """Kernel Tuner's `platform=` and `device=` indices of a pyopencl device."""
    for p, plat in enumerate(cl.get_platforms()):
        for d, dev in enumerate(plat.get_devices()):
            if dev.int_ptr == device.int_ptr:
                return p, d
    raise RuntimeError(f"device {device.name} not found among the OpenCL platforms")


def tune(kernel_tuner, where: tuple[int, int], name: str, source: str,
         problem_size: tuple[int, ...], arguments: list, params: Mapping[str, list],
         **options) -> tuple[list[dict], dict, float]:
    """One `tune_kernel(..., lang="OpenCL")` on the device at `where`, its printing sent
    to stderr: (results, env, wall seconds of the call)."""
    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        results, env = kernel_tuner.tune_kernel(
            name, source, problem_size, arguments, dict(params), lang="OpenCL",
            platform=where[0], device=where[1], quiet=True, **options)
    return results, env, time.perf_counter() - started


def timed_ok(result: Mapping) -> bool:
    """Whether a Kernel Tuner result ran and has a finite time."""
    value = result.get("time")
    return isinstance(value, (float, int, np.floating)) and math.isfinite(value)


def valid(results: list[dict]) -> list[dict]:
    return [r for r in results if timed_ok(r)]


def cost_s(results: list[dict], field: str) -> float:
    """A Kernel Tuner cost field (milliseconds per config) summed, in seconds."""
    return sum(float(r.get(field, 0) or 0) for r in results) / 1e3


class BuildCounter:
    """Counts real `pyopencl.Program.build` calls (both tools build through it), installed
    for the rest of the process (tests/support/build_spy.py is the tests' equivalent)."""

    def __init__(self) -> None:
        self.calls = 0
        real = cl.Program.build
        counter = self

        def counting_build(program, *args, **kwargs):
            counter.calls += 1
            return real(program, *args, **kwargs)

        cl.Program.build = counting_build


class BuildLog(logging.Handler):
    """Collects clmodes' "built N units ... in S s" debug records (build time breakdown)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.builds: list[tuple[int, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("built %d units") and record.args:
            self.builds.append((int(record.args[0]), float(record.args[2])))


@contextlib.contextmanager
def build_log() -> Iterator[BuildLog]:
    """clmodes' logger at DEBUG into a BuildLog (not propagated) for the block."""
    handler = BuildLog()
    logger = logging.getLogger("clmodes")
    previous = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous[0])
        logger.propagate = previous[1]


def event_seconds(event) -> float:
    """Device seconds of one launch, profiling events START..END (waits for it)."""
    event.wait()
    return (event.profile.end - event.profile.start) * 1e-9


def interleaved_device_times(launches: Mapping[str, Callable[[], object]], rounds: int,
                             warm_ups: int = 2) -> dict[str, dict[str, float]]:
    """Per name, median, min and max device seconds of `launches[name]()` (returns the
    launch's event): `warm_ups` untimed launches each, then `rounds` rounds over all
    names, the order reversed every other round."""
    for launch in launches.values():
        for _ in range(warm_ups):
            event_seconds(launch())
    samples: dict[str, list[float]] = {name: [] for name in launches}
    order = list(launches)
    for r in range(rounds):
        for name in (order if r % 2 == 0 else order[::-1]):
            samples[name].append(event_seconds(launches[name]()))
    return {name: {"median_s": statistics.median(s), "min_s": min(s), "max_s": max(s)}
            for name, s in samples.items()}


def remeasure(stream, launch: Callable, configs: Mapping[str, Mapping], args: tuple,
              rounds: int, warm_ups: int = 2,
              failures: dict[str, str] | None = None) -> dict[str, dict[str, float]]:
    """`interleaved_device_times` of `launch(stream, config, *args)` per config name, every
    config built first (COMPILE_ONLY: one batch, no build inside a timing). With
    `failures`, a config whose first launch fails is left out and its error's first line
    kept there (a tool's choice that fails here is a wrong answer worth reading);
    without, the failure propagates."""
    from clmodes import ProcessMode, ProcessModeOverride

    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        for config in configs.values():
            launch(stream, config, *args)
    runnable = dict(configs)
    with ProcessModeOverride(ProcessMode.EXECUTE):
        for name, config in configs.items() if failures is not None else ():
            try:
                event_seconds(launch(stream, config, *args))
            except Exception as error:  # noqa: BLE001 - a config that fails is rated as failed
                del runnable[name]
                failures[name] = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return interleaved_device_times(
            {name: (lambda config=config: launch(stream, config, *args))
             for name, config in runnable.items()}, rounds, warm_ups)
