#!/usr/bin/env python
"""Real pyopencl programs nobody here wrote: `clmodes run` against plain `python`, whole process.

    python ci/bench/bench_run_programs.py [--out OUT] [--reps N] [--runtimes A,B]
                                          [--programs NAME,...] [--smoke]

The programs are pyopencl's own examples, unedited (`ci/bench/programs/pyopencl/`, whose
README names their source and why each was chosen), none of those the tests already run,
plus one short script of ours that calls pyopencl's library kernels
(`ci/bench/programs/library/array_library.py`: pyopencl has no such example the tests do
not use), and loopy's tutorial example `rank-one.py`, unedited (`ci/bench/programs/loopy/`,
whose README names its source; it has no options, its size is fixed and small). Each runs
at a small size (its own command-line options), in a fresh working folder, its device picked as its author expects: `PYOPENCL_CTX` ("platform:device"), or
`-d N` for the programs that count devices over all platforms themselves; stdin is
/dev/null and MPLBACKEND=Agg, so none waits or opens a window.

Python's bytecode caches are as a user's install has them (clmodes compiled first, the
children run without PYTHONDONTWRITEBYTECODE). Caches are as a user has them: PoCL's kernel cache on (its default) and pyopencl's own
cache on (on PoCL pyopencl leaves caching to PoCL's), each in a folder of the run's own
(POCL_CACHE_DIR; pyopencl's cache has no variable of its own: it lives under
XDG_CACHE_HOME). Per program and runtime, 2 pairs (`--reps`), the two sides alternating
(one goes first in even pairs, the other in odd ones); each side is one fresh process timed
from its start to its exit:

- plain cold:     `python PROGRAM`, fresh empty PoCL and pyopencl caches;
- plain warm:     `python PROGRAM` again, on the caches the plain cold run filled;
- clmodes cold:   `clmodes run PROGRAM` on a fresh empty store, fresh PoCL/pyopencl caches;
- clmodes warmed: `clmodes run --strict PROGRAM` again, on the store (and PoCL cache) the
                  cold run filled: it must exit 0 (nothing built from source);
- bundle:         `clmodes bundle export` of the warmed store, imported (untimed) into a
                  fresh store; `clmodes run PROGRAM` on it with fresh PoCL and pyopencl
                  caches (a fresh machine given the bundle), timed; what it still built
                  from source is counted (not `--strict`: loopy, its own cache cold,
                  emits another text for the same kernel, which no bundle can hold).

Every run's standard output is checked against the first plain cold run's: the same line
count and the same digest of its lines with their digits removed (programs print timings
and, some, random samples); whether it was also byte-identical is reported apart. Ratios,
per program and runtime, medians of per-pair ratios: clmodes_cold_over_plain_cold (target
<= 1.25), warmed_over_plain_warm (target <= 1.0), bundle_over_plain_cold. The 1-minute
load average is recorded at the start and end of each program.
"""

from __future__ import annotations

import benchlib

import hashlib  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

PROGRAMS_DIR = benchlib.BENCH / "programs"
# name -> (path under programs/, arguments; "{device}" is the flat device index the
# program's own `-d` counts over all platforms)
PROGRAMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "svm": ("pyopencl/svm.py", ()),
    "pi-monte-carlo": ("pyopencl/pi-monte-carlo.py", ("-d", "{device}", "-i", "100000")),
    "n-body": ("pyopencl/n-body.py", ("-d", "{device}", "-n", "64", "-i", "10")),
    "black-hole-accretion": ("pyopencl/black-hole-accretion.py",
                             ("-d", "{device}", "-s", "64", "-n")),
    "array_library": ("library/array_library.py", ()),
    # loopy's tutorial example, unedited: no options; its size (200) is fixed and small
    "loopy-rank-one": ("loopy/rank-one.py", ()),
}
RUNTIMES = {"pocl3.0": "pthread-AMD", "intel": "Intel", "pocl3.1": "pthread-haswell"}
SMOKE_PROGRAM = "svm"
TIMEOUT_S = 300
TARGETS = {"clmodes_cold_over_plain_cold": 1.25, "warmed_over_plain_warm": 1.0}
RATIOS = {"clmodes_cold_over_plain_cold": ("clmodes cold", "plain cold"),
          "warmed_over_plain_warm": ("clmodes warmed", "plain warm"),
          "bundle_over_plain_cold": ("bundle", "plain cold")}
SIDES = ("plain cold", "plain warm", "clmodes cold", "clmodes warmed", "bundle")


def device_position(selector: str) -> tuple[str, int, str]:
    """(`PYOPENCL_CTX`, flat index over all platforms' devices, label) of the usable device
    whose clmodes label holds `selector`. Listing clmodes' devices registers Intel's runtime
    (`OCL_ICD_VENDORS` in this process's environment, which the children inherit), so the
    children's platform list is this one."""
    import pyopencl as cl

    import clmodes

    device = next((d for d in clmodes.devices()
                   if selector.lower() in d.label.lower() and clmodes.usability(d).usable), None)
    if device is None:
        raise SystemExit(f"no usable device matches {selector!r}")
    flat = 0
    for p, platform in enumerate(cl.get_platforms()):
        for i, found in enumerate(platform.get_devices()):
            if found == device.cl_device:
                return f"{p}:{i}", flat, device.label
            flat += 1
    raise SystemExit(f"{device.label} is not in pyopencl's list")


def masked(stdout: str) -> dict[str, object]:
    """A run's output as compared: line count, digest of its lines without digits, and
    the digest of the text itself."""
    lines = stdout.splitlines()
    return {"lines": len(lines),
            "masked": hashlib.sha256("\n".join(re.sub(r"\d", "", line) for line in lines)
                                     .encode()).hexdigest()[:16],
            "exact": hashlib.sha256(stdout.encode()).hexdigest()[:16]}


class Case:
    """One program on one runtime: its folders, commands and sides."""

    def __init__(self, name: str, runtime: str, base: dict[str, str], flat: int, scratch: Path):
        relative, args = PROGRAMS[name]
        self.name, self.runtime, self.base, self.scratch = name, runtime, base, scratch
        self.path = PROGRAMS_DIR / relative
        self.args = [arg.replace("{device}", str(flat)) for arg in args]
        self.count = 0
        self.outputs: list[tuple[str, dict[str, object]]] = []
        self.compiled: dict[str, list[int]] = {}

    def fresh(self, what: str) -> Path:
        self.count += 1
        folder = self.scratch / f"{what}-{self.count}"
        folder.mkdir()
        return folder

    def caches(self) -> dict[str, str]:
        return {"POCL_CACHE_DIR": str(self.fresh("pocl")),
                "XDG_CACHE_HOME": str(self.fresh("xdg"))}

    def timed(self, argv: list[str], env: dict[str, str], what: str,
              record: bool = True) -> float:
        started = time.perf_counter()
        done = subprocess.run(argv, env={**self.base, **env}, cwd=self.fresh("cwd"),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-4000:])
            tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
            raise SystemExit(f"{self.name} on {self.runtime}, {what} failed "
                             f"(exit {done.returncode}): {tail[0]}")
        if record:
            self.outputs.append((what, masked(done.stdout)))
        return seconds

    def plain(self, env: dict[str, str], what: str) -> float:
        return self.timed([sys.executable, str(self.path), *self.args], env, what)

    def clmodes_run(self, env: dict[str, str], what: str, strict: bool = False) -> float:
        report = self.fresh("report") / "report.json"
        options = ["--report", str(report), *(["--strict"] if strict else [])]
        seconds = self.timed(benchlib.clmodes_cli("run", *options, self.path, *self.args),
                             env, what)
        compiled = json.loads(report.read_text()).get("compilation", {}).get("compiled")
        self.compiled.setdefault(what, []).append(compiled)
        return seconds

    def cli(self, env: dict[str, str], *args: str) -> None:
        self.timed(benchlib.clmodes_cli(*args), env, " ".join(args[:2]), record=False)

    def pair(self, side: str) -> dict[str, float]:
        """One side of a pair: plain cold then warm, or clmodes cold, warmed and bundle."""
        if side == "plain":
            env = self.caches()
            return {"plain cold": self.plain(env, "plain cold"),
                    "plain warm": self.plain(env, "plain warm")}
        env = {**self.caches(), "CLMODES_CACHE_DIR": str(self.fresh("store"))}
        found = {"clmodes cold": self.clmodes_run(env, "clmodes cold"),
                 "clmodes warmed": self.clmodes_run(env, "clmodes warmed", strict=True)}
        bundle = self.fresh("bundle") / "programs.clmb"
        self.cli(env, "bundle", "export", str(bundle))
        shipped = {**self.caches(), "CLMODES_CACHE_DIR": str(self.fresh("store"))}
        self.cli(shipped, "bundle", "import", str(bundle), "--allow-unsigned")
        # Not --strict: a code generator may emit another text on a machine whose own
        # cache is cold (loopy orders loops differently), which no bundle can hold; what
        # the run built from source is counted instead (the table's "built" column).
        found["bundle"] = self.clmodes_run(shipped, "bundle")
        return found


def measure(case: Case, reps: int, log) -> dict[str, object]:
    load_start = benchlib.loadavg_1min()
    times: dict[str, list[float]] = {side: [] for side in SIDES}

    def run(side: str, index: int) -> dict[str, float]:
        found = case.pair(side)
        for key, seconds in found.items():
            times[key].append(seconds)
        return found

    benchlib.rounds(("plain", "clmodes"), reps, run, lambda index, _: log(
        f"  {case.runtime} pair {index + 1}/{reps}: "
        + ", ".join(f"{side} {times[side][-1]:.2f} s" for side in SIDES)))
    load_end = benchlib.loadavg_1min()
    reference = case.outputs[0][1]
    differing = [what for what, out in case.outputs
                 if (out["lines"], out["masked"]) != (reference["lines"], reference["masked"])]
    exact = all(out["exact"] == reference["exact"] for _, out in case.outputs)
    return {"seconds": benchlib.medians(times), "samples": times,
            **{name: benchlib.paired(times[a], times[b]) for name, (a, b) in RATIOS.items()},
            "compiled_from_source": case.compiled, "stdout_lines": reference["lines"],
            "stdout_same_masked": not differing, "stdout_differs": differing,
            "stdout_same_exact": exact, "load": [load_start, load_end]}


def compiled_as_installed() -> None:
    """clmodes' bytecode written, as `pip install` writes it (numpy's and pyopencl's is):
    a checkout run with PYTHONDONTWRITEBYTECODE set (this sandbox sets it) compiled every
    clmodes module in every clmodes process, 0.1-0.3 s that no user pays, and counted it
    against clmodes' start. The children run without that variable."""
    import compileall

    compileall.compile_dir(str(benchlib.ROOT / "clmodes"), quiet=1)
    compileall.compile_file(str(benchlib.ROOT / "clmodes_start.py"), quiet=1)


def main() -> None:
    parse = benchlib.parser(__doc__, reps=2, smoke_help=f"one program ({SMOKE_PROGRAM}), one "
                                                        "pair, first runtime")
    parse.add_argument("--out", dest="json", metavar="OUT", help="the same as --json")
    parse.add_argument("--runtimes", default="pocl3.0,intel",
                       help=f"comma-separated, of {', '.join(RUNTIMES)} (default pocl3.0,intel)")
    parse.add_argument("--programs", help=f"comma-separated (default all: {', '.join(PROGRAMS)})")
    args = parse.parse_args()
    log = benchlib.progress_logger(False)
    names = ([SMOKE_PROGRAM] if args.smoke
             else args.programs.split(",") if args.programs else list(PROGRAMS))
    runtimes = args.runtimes.split(",")[:1 if args.smoke else None]
    unknown = [n for n in names if n not in PROGRAMS] + [r for r in runtimes if r not in RUNTIMES]
    if unknown:
        raise SystemExit(f"unknown program(s) or runtime(s): {unknown}")
    reps = 1 if args.smoke else args.reps
    compiled_as_installed()
    positions = {runtime: device_position(RUNTIMES[runtime]) for runtime in runtimes}
    results: dict[str, dict[str, object]] = {}
    before = benchlib.loadavg_1min()
    for name in names:
        log(f"{name}:")
        results[name] = {}
        for runtime in runtimes:
            ctx, flat, label = positions[runtime]
            base = benchlib.child_env(path=(), device=RUNTIMES[runtime],
                                      drop=("COLUMNS", "LINES", *benchlib.CACHE_VARIABLES,
                                            "CLMODES_CACHE_DIR", "PYTHONDONTWRITEBYTECODE"),
                                      PYOPENCL_CTX=ctx, MPLBACKEND="Agg", DISPLAY="",
                                      WAYLAND_DISPLAY="", PYTHONWARNINGS="ignore")
            scratch = Path(tempfile.mkdtemp(prefix=f"clmodes-bench-run-{name}-"))
            try:
                case = Case(name, runtime, base, flat, scratch)
                results[name][runtime] = {"device": label, "pyopencl_ctx": ctx,
                                          **measure(case, reps, log)}
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    after = benchlib.loadavg_1min()
    print(f"{reps} pair(s) per program and runtime, medians of per-pair ratios"
          f"{benchlib.load_text(before, after)}; "
          + "; ".join(f"{r}: {positions[r][2]}" for r in runtimes))
    print()
    print("| program | runtime | plain cold s | plain warm s | clmodes cold s | warmed s "
          "| bundle s | clmodes cold / plain cold | warmed / plain warm | bundle / plain cold "
          "| built cold / warmed / bundle | stdout same | load start-end |")
    print("|" + "---|" * 13)
    for name, per_runtime in results.items():
        for runtime, found in per_runtime.items():
            seconds, compiled = found["seconds"], found["compiled_from_source"]
            marks = {ratio: " ok" if found[ratio] <= TARGETS[ratio] else " over"
                     for ratio in TARGETS}
            built = " / ".join(str(statistics.median(compiled.get(side, [0]) or [0]))
                               for side in ("clmodes cold", "clmodes warmed", "bundle"))
            same = ("yes" if found["stdout_same_exact"] else "masked") \
                if found["stdout_same_masked"] else "NO"
            load = found["load"]
            print(f"| {name} | {runtime} | "
                  + " | ".join(f"{seconds[side]:.2f}" for side in SIDES)
                  + f" | {found['clmodes_cold_over_plain_cold']:.2f}"
                  + marks["clmodes_cold_over_plain_cold"]
                  + f" | {found['warmed_over_plain_warm']:.2f}" + marks["warmed_over_plain_warm"]
                  + f" | {found['bundle_over_plain_cold']:.2f} | {built} | {same} | "
                  + (f"{load[0]:.1f}-{load[1]:.1f}" if None not in load else "?") + " |")
    benchlib.write_json(args.json, {"reps": reps, "load": [before, after],
                                    "runtimes": {r: {"pyopencl_ctx": p[0], "flat_index": p[1],
                                                     "device": p[2]}
                                                 for r, p in positions.items()},
                                    "targets": TARGETS, "programs": results})


if __name__ == "__main__":
    main()
