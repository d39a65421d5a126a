"""Pieces the benchmark scripts share (they run as scripts, so this sits beside them).

Importing this module loads neither pyopencl nor clmodes, so a script can call
`cold_caches()` and `temp_store()` before it imports them (Intel's CPU runtime
registers itself: `clmodes.icd`).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import itertools
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE_VARIABLES = ("POCL_KERNEL_CACHE", "PYOPENCL_NO_CACHE")


# -- set-up before pyopencl is imported --------------------------------------------------


def cold_caches(force: bool = True) -> None:
    """PoCL's and pyopencl's caches off (docs/facts.md, Caches); with force=False a value
    the caller already set is kept. Must run before pyopencl is imported."""
    for name, value in zip(CACHE_VARIABLES, ("0", "1")):
        if force:
            os.environ[name] = value
        else:
            os.environ.setdefault(name, value)


def temp_store(prefix: str, remove_at_exit: bool = True) -> str:
    """A throw-away clmodes store ($CLMODES_CACHE_DIR): measurements stay cold and never
    clutter the user's real store. Removed at exit unless told otherwise."""
    directory = tempfile.mkdtemp(prefix=prefix)
    os.environ["CLMODES_CACHE_DIR"] = directory
    if remove_at_exit:
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return directory


# -- command line, progress ---------------------------------------------------------------


def parser(doc: str | None, *, json_help: str | None = None, quick_help: str | None = None,
           quiet: bool = False, json_type: Callable | None = None) -> argparse.ArgumentParser:
    """An argument parser described by the docstring's first paragraph, with the common
    flags asked for: --json OUT (json_help), --quick (quick_help), --quiet."""
    result = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    if json_help is not None:
        if json_type is None:
            result.add_argument("--json", metavar="OUT", help=json_help)
        else:
            result.add_argument("--json", type=json_type, help=json_help)
    if quick_help is not None:
        result.add_argument("--quick", action="store_true", help=quick_help)
    if quiet:
        result.add_argument("--quiet", action="store_true", help="no progress lines")
    return result


def progress_logger(quiet: bool) -> Callable[[str], None]:
    """A progress printer to stderr (stdout carries the report), silent with --quiet."""
    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr, flush=True)
    return log


# -- timing ------------------------------------------------------------------------------


def timed(fn: Callable[[int], object], count: int) -> float:
    """Seconds per call of `fn(count)` (which makes `count` calls), with the garbage
    collector off so that a collection does not land inside one side's loop."""
    gc.disable()
    try:
        started = time.perf_counter()
        fn(count)
        return (time.perf_counter() - started) / count
    finally:
        gc.enable()


def timed_wall_cpu(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds) of fn(), after a collection and with the
    collector off. Single-threaded work: CPU time is wall time less time-slicing."""
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        return time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gc.enable()


def samples(run: Callable[[], object], reps: int) -> list[float]:
    """Seconds of each of `reps` calls of run(), after one untimed warm-up call."""
    run()  # warm-up: page faults, thread start-up
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return times


def salt_counter(offset: int = 0) -> "itertools.count[int]":
    """Salts for sources that must be new to every cache: counting up from the clock's
    milliseconds (plus `offset`, so that two counters of one run do not meet)."""
    return itertools.count(int(time.time() * 1000) % 1_000_000_000 + offset)


def rotated(sides: Sequence, round_index: int) -> list:
    """The sides in the order round `round_index` runs them: rotated by one per round, so
    each side goes first in turn (with two sides: alternating)."""
    shift = round_index % len(sides)
    return [*sides[shift:], *sides[:shift]]


# -- machine state, meta block, output ----------------------------------------------------


def loadavg() -> tuple[float, float, float] | None:
    """The 1-, 5- and 15-minute load averages, None where the platform has none."""
    try:
        return os.getloadavg()
    except (AttributeError, OSError):
        return None


def loadavg_1min() -> float | None:
    load = loadavg()
    return None if load is None else load[0]


def warn_if_loaded(log: Callable[[str], None], limit: float = 0.5) -> float | None:
    """The 1-minute load average, with a warning through `log` above `limit`."""
    load = loadavg_1min()
    if load is not None and load > limit:
        log(f"warning: load average {load:.2f} before starting: other work on this "
            "machine will add noise (launch figures most)")
    return load


# A busy loop that ends when its parent does: a benchmark killed without its `finally`
# (SIGKILL, SIGTERM) leaves no loop spinning behind it.
_BUSY = """import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(100000):
        pass
"""


@contextlib.contextmanager
def busy_load(count: int, settle_s: float = 5.0) -> Iterator[None]:
    """`count` busy-looping child processes for the duration of the block: a load that a
    figure "under load" can be measured under again, where the machine's own load is
    whatever else ran. They are this process's own children, stopped through their
    handles (never by name), and waited for, so none outlives the block. `settle_s`:
    the seconds they run before the block starts, so it starts loaded."""
    workers = [subprocess.Popen([sys.executable, "-c", _BUSY]) for _ in range(max(count, 0))]
    try:
        if workers:
            time.sleep(settle_s)
        yield
    finally:
        for worker in workers:
            worker.kill()
        for worker in workers:
            worker.wait()


def device_meta(device) -> dict[str, object]:
    """A clmodes device's label and exact fingerprint."""
    return {"device": device.label, "fingerprint": device.fingerprint.exact}


def run_meta(device, env_names: Sequence[str] = CACHE_VARIABLES) -> dict[str, object]:
    """The meta block's common part: the device, the cache variables as set, pyopencl's,
    clmodes' and Python's versions, the CPU count."""
    import pyopencl as cl

    import clmodes

    return {
        **device_meta(device),
        "env": {name: os.environ.get(name) for name in env_names},
        "pyopencl": cl.VERSION_TEXT,
        "clmodes": clmodes.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }


def load_text(before: float | None, after: float | None) -> str:
    """" (1-min load average X before, Y after)", empty when either is unknown."""
    if before is None or after is None:
        return ""
    return f" (1-min load average {before:.2f} before, {after:.2f} after)"


def write_json(path: str | os.PathLike | None, results: object, *, newline: bool = True,
               default: Callable | None = None) -> None:
    """Write a benchmark's figures for `ci/bench/run` (nothing when no path was given)."""
    if path:
        with open(path, "w") as handle:
            json.dump(results, handle, indent=2, default=default)
            if newline:
                handle.write("\n")


def child_json(command: Sequence[str], what: str, env: dict[str, str] | None = None) -> dict:
    """Run a benchmark's child process (one setting per process: an environment variable
    a runtime reads when it loads, a CPU affinity) and return the JSON object its last
    stdout line prints; a failed child ends the benchmark with one line naming `what`."""
    done = subprocess.run(list(command), env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        raise SystemExit(f"{what} failed: {tail[0]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def dist_version(name: str) -> str | None:
    """An installed distribution's version, None if unknown (for a benchmark's meta)."""
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001
        return None
