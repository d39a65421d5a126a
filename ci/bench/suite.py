"""The benchmarks `ci/bench/run` knows, and how one of them is started and read.

Registering a script is one `Bench(...)` line in `BENCHES`. Every registered script takes
`--json OUT` (its figures, read for every leaf whose name says ratio, fraction, speed-up
or "over", and its `curves` where it has some) and `--smoke` (a tiny size that finishes in seconds: what `ci/bench/run
--smoke` and `tests/e2e/test_bench_smoke.py` run). Importing this module loads neither
pyopencl nor clmodes.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import child_env, loadavg_1min as load_1min, usable_devices

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


@dataclasses.dataclass(frozen=True)
class Bench:
    """One benchmark script. `devices`: "each" runs it once per device ($CLMODES_DEVICE),
    "first" once on the first device, "list" once with `--devices A,B` (it runs each
    device itself), "none" once, on no device (no OpenCL). `long`: only with `ci/bench/run --long` or `--only NAME`. `needs`:
    modules without which it is skipped (extras), and programs as `bin:NAME`. `smoke`: "run" (tiny but real figures)
    or "setup" (the smoke only parses its arguments and sets up: no ratio expected)."""

    name: str
    script: str
    what: str
    args: tuple[str, ...] = ()
    devices: str = "each"
    long: bool = False
    needs: tuple[str, ...] = ()
    smoke: str = "run"
    runtime: str | None = None  # a runtime it needs a usable device of ("PoCL")


BENCHES: tuple[Bench, ...] = (
    Bench("core", "bench_core.py", "cold compile batched against one build per kernel; "
          "launch overhead against pyopencl"),
    Bench("tune", "bench_tune.py", "Tunable against Kernel Tuner, 16-config matmul",
          needs=("kernel_tuner",)),
    Bench("kernels", "bench_kernels.py", "tuned kernels_cl matmul against naive and numpy"),
    Bench("probe", "bench_probe.py", "clmodes.probe against numpy's copy and matmul"),
    Bench("space", "bench_space.py", "Tunable(space=) against Kernel Tuner on the GEMM space",
          args=("--no-mlp",), needs=("kernel_tuner",)),
    Bench("warm", "bench_warm.py", "clmodes.warm of the MLP against cold runs",
          args=("--reps", "1", "--budget", "1"), devices="first"),
    Bench("warm_pocl_cache", "bench_warm.py", "the same with PoCL's kernel cache on (its "
          "default), one folder per store, three reps", args=("--reps", "3", "--budget",
          "900", "--pocl-cache"), devices="first", long=True, runtime="PoCL"),
    Bench("launch_checks", "bench_launch_checks.py", "launch buffer checks on and off"),
    Bench("last_use", "bench_last_use.py", "a warm second process with last-use notes on "
          "and off", devices="first"),
    Bench("corpus_builds", "bench_corpus_builds.py", "real libraries (ArrayFire, CLBlast, "
          "clpeak, pyopencl complex): builds per group, batched against separate"),
    Bench("preparation", "bench_preparation.py", "real-size code (John the Ripper's kernels "
          "sharing 21 headers): a first batched obtain's CPU split (preparation, probe, build, "
          "persistence) and a second process's, against plain builds"),
    Bench("preparation_pocl_cache", "bench_preparation.py", "John the Ripper's kernels on "
          "PoCL with its kernel cache on (PoCL's default), where clmodes keeps each batch as "
          "its source record: the same split against plain builds and plain builds again",
          args=("--case", "john", "--pocl-cache"), long=True, runtime="PoCL"),
    Bench("bundle_import", "bench_bundle_import.py", "bundle import with and without "
          "its load check", devices="first"),
    Bench("remote", "bench_remote.py", "a fresh machine's first result: the team's remote "
          "warm against cold and a bundle; a down remote's cost", devices="list",
          needs=("redis", "bin:redis-server")),
    Bench("persist", "bench_persist.py", "a batch build with a persistent store against "
          "the store in memory, separate builds and raw concatenation, first launches "
          "included"),
    Bench("persist_pocl_cache", "bench_persist.py", "the same with PoCL's kernel cache on "
          "(its default; every unit fresh, so it serves no side), three reps",
          args=("--pocl-cache", "--reps", "3"), long=True, runtime="PoCL"),
    Bench("quality", "bench_quality.py", "time to a config within 1.05 of the best known: "
          "clmodes' default strategy against Kernel Tuner's four (GEMM space, 60 s "
          "budgets, 3 seeds; CLBlast's Xgemm with `--spaces xgemm`), and apart from them "
          "the same search started from kernels_cl.matmul's start configs (local+start)",
          args=("--spaces", "gemm", "--budget", "60", "--ours", "local,local+start"), long=True,
          needs=("kernel_tuner",)),
    Bench("search_replay", "bench_search_replay.py", "the search alone: configs measured to "
          "within 1.05 of the best, clmodes' strategies against Kernel Tuner's in its "
          "simulation mode, on the same recorded times (no OpenCL)", devices="none",
          long=True, needs=("kernel_tuner", "sklearn")),
    Bench("strategies", "bench_strategies.py", "search strategies on synthetic objectives "
          "(no OpenCL)", devices="none", long=True),
    Bench("first_result", "bench_first_result.py", "existing pyopencl programs, unchanged "
          "(the test corpus): whole-process time to first result per program, plain cold, "
          "plain with pyopencl's (on PoCL: PoCL's) cache, `clmodes run` cold, warmed, and on "
          "a fresh store given a bundle", devices="each", long=True),
    Bench("run_programs", "bench_run_programs.py", "real pyopencl programs nobody here "
          "wrote (pyopencl's and loopy's examples, unedited): `clmodes run` cold, warmed and "
          "on a fresh store given a bundle, against plain `python` cold and with its caches "
          "warm, whole process, sides alternating (it picks its runtimes itself: --runtimes)",
          args=("--runtimes", "pocl3.0,intel,pocl3.1"), devices="none", long=True),
    Bench("decisions", "bench_decisions.py", "20 exhaustive tunes of a 48-config GEMM "
          "subspace per final rule (a final's sample the median or the fastest of its "
          "runs, alternating): choices against an interleaved re-measurement's best",
          args=("--final-runs-as", "median,fastest"), long=True),
    Bench("decisions_loaded", "bench_decisions.py", "the same beside 3 busy-looping "
          "processes (a load that can be repeated)",
          args=("--load", "3", "--final-runs-as", "median,fastest"), long=True),
    Bench("warm_start", "bench_warm_start.py", "a warmed fresh process running the MLP "
          "against a cold one, the floor (Python, pyopencl and a context) and the floor "
          "loading the same binaries without clmodes", long=True),
    Bench("warm_start_pocl_cache", "bench_warm_start.py", "the same with PoCL's kernel "
          "cache on (its default): empty for cold, the one `clmodes warm` filled for the "
          "others", args=("--pocl-cache",), long=True, runtime="PoCL"),
    Bench("fleet", "bench_fleet.py", "fleet warm over a two-node Ray cluster against "
          "single warms", devices="first", long=True, needs=("ray",), smoke="setup"),
)


def by_name() -> dict[str, Bench]:
    return {bench.name: bench for bench in BENCHES}


def missing(bench: Bench) -> list[str]:
    """The modules `bench` needs that are not installed, and the runtime it needs where
    no device of it here can build (`clmodes.usability`)."""
    absent = [name.removeprefix("bin:") for name in bench.needs
              if (shutil.which(name[4:]) is None if name.startswith("bin:")
                  else importlib.util.find_spec(name) is None)]
    if bench.runtime is not None and not usable_devices(bench.runtime):
        absent.append(f"a usable {bench.runtime} device")
    return absent


def selected_devices(selectors: list[str],
                     skipped: Callable[[str, Exception], None] = lambda selector, error: None
                     ) -> dict[str, Any]:
    """Each selector ("pocl", "intel", "1") -> the device the scripts' `--device SELECTOR`
    gets (its first usable match, a `clmodes.Device`); `skipped(selector, error)` for one
    that matches none."""
    from clmodes.selection import choose
    import clmodes

    found = {}
    for selector in selectors:
        try:
            found[selector] = choose(selector, clmodes.usability)
        except (clmodes.NoDeviceError, clmodes.DeviceUnusableError) as error:
            skipped(selector, error)
    return found


def of_runtime(runtime: str, selectors: list[str]) -> list[str]:
    """The selectors whose first usable device is of `runtime`, in their order."""
    return [selector for selector, device in selected_devices(selectors).items()
            if device.fingerprint.vendor == runtime]


def command(bench: Bench, out: Path, *, smoke: bool = False,
            devices: list[str] | None = None) -> list[str]:
    """The command line of one run of `bench`, writing its JSON to `out`."""
    argv = [sys.executable, str(HERE / bench.script)]
    argv += ["--smoke"] if smoke else list(bench.args)
    if bench.devices == "list" and devices:
        argv += ["--devices", ",".join(devices)]
    return argv + ["--json", str(out)]


def ratios(value: object, prefix: str = "") -> dict[str, float]:
    """Every numeric leaf whose path names a ratio, fraction or speed-up."""
    found: dict[str, float] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            found.update(ratios(item, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list):
        labels = [label(item, index) for index, item in enumerate(value)]
        if len(set(labels)) < len(labels):  # names that repeat would overwrite figures
            labels = [str(index) for index in range(len(value))]
        for name, item in zip(labels, value):
            found.update(ratios(item, f"{prefix}[{name}]"))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        words = set(re.split(r"[^a-z0-9]+", prefix.lower().rsplit(".", 1)[-1]))
        if words & {"ratio", "fraction", "speedup", "over"} and "target" not in words:
            found[prefix] = float(value)
    return found


def label(item: object, index: int) -> str:
    """A list item's name in a ratio's path: its `family` or `name` ("exhaustive"), else its
    size (`n=256`), else its index: `sizes[n=256].runs[exhaustive]` says which figure it
    is where `sizes[0].runs[2]` did not."""
    if isinstance(item, dict):
        for key in ("family", "name"):
            if isinstance(item.get(key), str) and item[key]:
                return str(item[key])
        if isinstance(item.get("n"), int) and not isinstance(item["n"], bool):
            return f"n={item['n']}"
    return str(index)


def _keep(folder: Path, stem: str, result: Path, output: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.log").write_text(output)
    if result.exists():
        shutil.copyfile(result, folder / f"{stem}.json")


@dataclasses.dataclass
class Outcome:
    """One run of one benchmark: its ratios, how it went, and the machine's load."""

    figures: dict[str, float]
    seconds: float
    status: str
    load_before: float | None
    load_after: float | None
    returncode: int | None = None
    output: str = ""
    curves: list[dict] = dataclasses.field(default_factory=list)


def run_one(bench: Bench, device: str | None, *, smoke: bool = False,
            devices: list[str] | None = None, timeout: float | None = None,
            keep: Path | None = None) -> Outcome:
    """Run `bench` as a child process (on `device` through $CLMODES_DEVICE); with `keep`,
    its whole JSON and output are copied there as `NAME-DEVICE.json` and `.log` (the page
    keeps only ratios and curves; a long run's per-seed figures are worth keeping)."""
    env = child_env(path=(), device=device)
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "result.json"
        load_before, started = load_1min(), time.perf_counter()
        try:
            done = subprocess.run(command(bench, out, smoke=smoke, devices=devices), env=env,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as error:
            return Outcome({}, time.perf_counter() - started, f"failed: timed out after "
                           f"{error.timeout:.0f} s", load_before, load_1min())
        seconds, load_after = time.perf_counter() - started, load_1min()
        output = (done.stdout or "") + (done.stderr or "")
        if keep is not None:
            _keep(keep, f"{bench.name}-{device or 'none'}", out, output)
        if done.returncode != 0 or not out.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            return Outcome({}, seconds, f"failed: {tail[0]}", load_before, load_after,
                           done.returncode, output)
        found = json.loads(out.read_text())
        return Outcome(ratios(found), seconds, "ok", load_before, load_after,
                       done.returncode, output, curves(found))


def curves(found: object) -> list[dict]:
    """A script's `curves`: figures over time that a table of ratios cannot show (each
    `{"title", "moments_s", "within", "lines": {name: {"median_incumbent_vs_best",
    "seeds_within", "seeds"}}}`, as `bench_quality.py` writes them)."""
    listed = found.get("curves") if isinstance(found, dict) else None
    return [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
