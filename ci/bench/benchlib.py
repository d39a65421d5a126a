"""Pieces the benchmark scripts share (they run as scripts, so this sits beside them).

Importing this module loads neither pyopencl nor clmodes, so a script can call
`cold_caches()` and `temp_store()` before it imports them (Intel's CPU runtime
registers itself: `clmodes.icd`). What is here: the set-up before pyopencl (caches
off, a throw-away store), the command line (`parser`: --json, --smoke, --reps, ...),
timing (`timed`, `rounds` in rotated order, `medians`, `paired`), child processes
(`child_env`, `run_child`, `timed_child`, `child_json`: one setting per process), the
machine's load and the meta block, and `write_json` for `ci/bench/run`.

The scripts use clmodes' public API (`clmodes.__all__`) and, where they measure
clmodes' own parts, these internals (each for the reason given; nothing else):

- `clmodes.batch.plan`, `clmodes.batch.limits.max_units` (bench_core, corpus_compile):
  the preprocessing figure times the batch planner alone, at the runtime's batch size.
- `clmodes.batch.preprocess`, `.program`, `clmodes.compiler_probe`, `clmodes.server`,
  `clmodes.programs` (bench_preparation), `clmodes.server.DeviceServer._build/_load`,
  `clmodes.tune.tunable.Tunable._tune`, `clmodes.programs.capture` (bench_warm's
  child): wrapped to split a process's time into preparation, probe, build, load,
  tune and persistence.
- `Client.server` (`queue_kernel`, `flush`, `persist`, `is_obtained`, `ready`,
  `macros_for`, `compiler`): queue and obtain a batch without launching, check that a
  side obtained every kernel, and switch a launchable's buffer checks
  (bench_launch_checks).
- `clmodes.runtime.Runtime` (bench_persist): two runtimes in one process, one store on
  disk and one in memory, side by side.
- `clmodes.selection.choose` (run, bench_first_result): the device `--device SELECTOR`
  / $CLMODES_DEVICE picks, without creating a client (a context) in the parent.
- `clmodes.store.footprint.EXIT_WAIT_S`, `Store.uses` (bench_last_use): the use notes
  flushed as the exit handler flushes them, timed.
- `clmodes.tune.measuring.finals`, `.racing.sample` (bench_decisions): the tune's own
  decision rules replayed on re-measured samples.
- `clmodes.tune.search.strategies.run_search` (bench_strategies, bench_search_replay;
  docs/tuning.md): a search without OpenCL.
- `clmodes.bundle` (bundle_import, bench_remote; docs/trust.md): install, export and keys.
- `clmodes.remote`, `clmodes.store` rows (bench_remote, its --hostile; docs/remote.md):
  a remote configured per measurement in one process, and a publish driven directly.
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
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "ci" / "bench"
CACHE_VARIABLES = ("POCL_KERNEL_CACHE", "PYOPENCL_NO_CACHE")
COLD = dict(zip(CACHE_VARIABLES, ("0", "1")))  # both caches off (docs/facts.md, Caches)
K = TypeVar("K")
V = TypeVar("V")


# -- set-up before pyopencl is imported --------------------------------------------------


def cold_caches(force: bool = True) -> None:
    """PoCL's and pyopencl's caches off (docs/facts.md, Caches); with force=False a value
    the caller already set is kept. Must run before pyopencl is imported."""
    for name, value in COLD.items():
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


def parser(doc: str | None, *, json_help: str | None = "write the figures as JSON to OUT",
           quick_help: str | None = None, quiet: bool = False, json_type: Callable | None = None,
           smoke_help: str | None = None, reps: int | None = None) -> argparse.ArgumentParser:
    """An argument parser described by the docstring's first paragraph, with the common
    flags asked for: --json OUT (json_help; every registered script takes it), --quick
    (quick_help), --quiet, --smoke (smoke_help: what `ci/bench/run --smoke` runs) and
    --reps N (its default)."""
    result = argparse.ArgumentParser(description=(doc or "").strip().split("\n\n")[0])
    if json_help is not None:
        result.add_argument("--json", metavar="OUT", type=json_type, help=json_help)
    if quick_help is not None:
        result.add_argument("--quick", action="store_true", help=quick_help)
    if quiet:
        result.add_argument("--quiet", action="store_true", help="no progress lines")
    if smoke_help is not None:
        result.add_argument("--smoke", action="store_true", help=smoke_help)
    if reps is not None:
        result.add_argument("--reps", type=int, default=reps, help=f"repetitions (default {reps})")
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


def rounds(sides: Sequence[K], reps: int, measure: Callable[[K, int], V],
           after: Callable[[int, dict[K, list[V]]], None] | None = None) -> dict[K, list[V]]:
    """`reps` rounds, each calling `measure(side, round)` once per side in the order
    `rotated` gives that round (so background load hits every side alike, and none
    always goes first): each side's results, in round order. `after(round, so_far)`
    runs at the end of each round (a progress line)."""
    found: dict[K, list[V]] = {side: [] for side in sides}
    for index in range(reps):
        for side in rotated(sides, index):
            found[side].append(measure(side, index))
        if after is not None:
            after(index, found)
    return found


def medians(samples: Mapping[K, Iterable[float]]) -> dict[K, float]:
    """The median of each side's samples."""
    return {side: statistics.median(values) for side, values in samples.items()}


def paired(ours: Sequence[float], theirs: Sequence[float]) -> float:
    """The median of per-round ratios (`ours[i] / theirs[i]`): two sides timed in the same
    rounds share each round's load, which a ratio of their medians does not cancel."""
    return statistics.median(a / b for a, b in zip(ours, theirs))


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


def usable_devices(vendor: str | None = None) -> list:
    """clmodes' devices that can build here (`clmodes.usability`), of `vendor` ("PoCL")
    where given, in clmodes' order."""
    import clmodes

    return [device for device in clmodes.devices()  # the vendor first: no needless check
            if (vendor is None or device.fingerprint.vendor == vendor)
            and clmodes.usability(device).usable]


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


# -- child processes: one setting (an environment, a store, an affinity) per process -------


def child_env(*, store: str | os.PathLike | None = None, device: str | None = None,
              path: Sequence[str | os.PathLike] = (BENCH,), drop: Sequence[str] = (),
              **extra: str) -> dict[str, str]:
    """This process's environment for a child: PYTHONPATH the repository, `path` (this
    folder: the children import the scripts' helpers) and the caller's own; `store` as
    $CLMODES_CACHE_DIR and `device` as $CLMODES_DEVICE where given; `drop` removed,
    `extra` set."""
    env = {name: value for name, value in os.environ.items() if name not in drop}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *map(str, path), *filter(None, [os.environ.get("PYTHONPATH")])])
    if store is not None:
        env["CLMODES_CACHE_DIR"] = str(store)
    if device:
        env["CLMODES_DEVICE"] = device
    env.update(extra)
    return env


def python(code: str, *argv: object) -> list[str]:
    """The command line of `python -c CODE ARGV...` (a child whose code the script holds)."""
    return [sys.executable, "-c", code, *map(str, argv)]


def clmodes_cli(*args: object) -> list[str]:
    """The command line of `python -m clmodes ARGS...` (what a user runs)."""
    return [sys.executable, "-m", "clmodes", *map(str, args)]


def run_child(command: Sequence[str], what: str, *, env: Mapping[str, str] | None = None,
              timeout: float | None = None, cwd: str | os.PathLike | None = None,
              ok: Container[int] = (0,), echo: bool = False) -> subprocess.CompletedProcess:
    """Run a child process to its end, its output captured. One whose exit status is not
    in `ok` ends the benchmark: its stderr's tail goes to this process's stderr, and the
    exit message is one line naming `what` (the line `ci/bench/run` reports). `echo`:
    its stderr goes to this process's stderr in any case (a set-up step's warnings)."""
    done = subprocess.run(list(command), env=None if env is None else dict(env), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False)
    if echo and done.returncode in ok:
        sys.stderr.write(done.stderr)
    if done.returncode not in ok:
        sys.stderr.write(done.stderr[-4000:])
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"{what} failed (exit {done.returncode}): {tail[0]}")
    return done


def timed_child(command: Sequence[str], what: str, **options) -> tuple[float, str]:
    """(wall seconds, standard output) of one fresh process, timed by this one from its
    start to its exit (interpreter start-up, imports, work, exit: what a user waits for);
    `options` as `run_child`'s."""
    started = time.perf_counter()
    done = run_child(command, what, **options)
    return time.perf_counter() - started, done.stdout


def child_json(command: Sequence[str], what: str, env: Mapping[str, str] | None = None,
               **options) -> dict:
    """Run a benchmark's child process (`run_child`) and return the JSON object its last
    stdout line prints."""
    stdout = run_child(command, what, env=env, **options).stdout
    lines = stdout.strip().splitlines()
    if not lines:
        raise SystemExit(f"{what} printed nothing")
    return json.loads(lines[-1])


def free_port() -> int:
    """A free TCP port on loopback (for a server a script starts as its own child)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def dist_version(name: str) -> str | None:
    """An installed distribution's version, None if unknown (for a benchmark's meta)."""
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001
        return None
