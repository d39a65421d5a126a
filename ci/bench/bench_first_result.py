#!/usr/bin/env python
"""Existing pyopencl programs, unchanged: whole-process time to first result, per program.

    python ci/bench/bench_first_result.py [--json OUT] [--reps N] [--device SELECTOR]
                                          [--programs NAME,...] [--smoke]

The programs are the test corpus as their authors wrote them: pyopencl's examples
(`tests/corpus/pyopencl_upstream`) and the two programs of other repositories
(`tests/corpus/pyopencl_other`), each run as `python PROGRAM` in its own folder, its
device chosen by `PYOPENCL_CTX` as `tests/e2e/test_run.py` does (`--device` or
`$CLMODES_DEVICE`: a substring of clmodes' device label, the first usable match). A
program that builds nothing (`dump-properties.py`) is skipped. Each side is one fresh
process timed from its start to its exit (Python's start-up, imports, builds, launches
and the program's own work: everything a user waits for):

- plain cold:       `python PROGRAM`, pyopencl's cache off (PYOPENCL_NO_CACHE=1) and PoCL's
                    kernel cache off (POCL_KERNEL_CACHE=0): every program built from source;
- pyopencl cache:   `python PROGRAM` with the caches a plain user has on, in folders a
                    previous plain run filled (untimed): pyopencl's binary cache
                    (XDG_CACHE_HOME) and PoCL's kernel cache (POCL_CACHE_DIR). On PoCL,
                    pyopencl skips its own cache (`pyopencl.characterize.has_src_build_cache`
                    is True for PoCL) and relies on PoCL's, so there this side measures PoCL's
                    kernel cache; on Intel's runtime, pyopencl's;
- clmodes cold:     `clmodes run PROGRAM` on a fresh store;
- warmed:           `clmodes run PROGRAM` on a store a previous `clmodes run` of it filled
                    (untimed, in its own process);
- bundle:           `clmodes run PROGRAM` on a fresh store into which a bundle exported from
                    that store was imported: a fresh machine given the bundle. The import runs
                    before the side, untimed; its own time is reported apart (`import_s`).

The three `clmodes run` sides run with PoCL's kernel cache and pyopencl's cache off, so
what they show is clmodes' store alone (a fresh machine has neither cache filled either).
Cold folders are fresh temporary folders per rep. Per rep the sides run in an order rotated
by one; the figures are medians over reps. Every side must exit 0 (the outputs are
compared in `tests/e2e/test_run.py`). Ratios, per program: `plain_cold_over_warmed`,
`pyopencl_cache_over_warmed`, `plain_cold_over_bundle`, `pyopencl_cache_over_bundle` (> 1:
clmodes is faster) and `clmodes_cold_over_plain_cold` (what a first `clmodes run` costs
more than a plain cold one). The 1-minute load is printed before and after.
"""

from __future__ import annotations

import benchlib

import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(benchlib.ROOT / "tests"))

SIDES = ("plain cold", "pyopencl cache", "clmodes cold", "warmed", "bundle")
RATIOS = {"plain_cold_over_warmed": ("plain cold", "warmed"),
          "pyopencl_cache_over_warmed": ("pyopencl cache", "warmed"),
          "plain_cold_over_bundle": ("plain cold", "bundle"),
          "pyopencl_cache_over_bundle": ("pyopencl cache", "bundle"),
          "clmodes_cold_over_plain_cold": ("clmodes cold", "plain cold")}
SMOKE_PROGRAM = "example_demo"
TIMEOUT_S = 900


def programs() -> dict[str, tuple[Path, tuple[str, ...]]]:
    """The corpus programs that build something: short name -> (path, arguments)."""
    from support.pyopencl_corpus import CORPUS, EXAMPLES, PROGRAMS

    found = {Path(name).stem: (CORPUS / name, ()) for name in EXAMPLES}
    found.update({p.path.stem: (p.path, p.args) for p in PROGRAMS if p.builds})
    return found


def pyopencl_ctx(selector: str) -> tuple[str, str]:
    """(`PYOPENCL_CTX` "platform:device", label) of the device `selector` picks. Importing
    clmodes first registers Intel's runtime (`clmodes.icd`, `OCL_ICD_VENDORS`), which the
    children inherit, so their platform list is this one."""
    import pyopencl as cl

    import clmodes
    from clmodes.selection import choose

    device = choose(selector, clmodes.usability)
    for p, platform in enumerate(cl.get_platforms()):
        for i, found in enumerate(platform.get_devices()):
            if found == device.cl_device:
                return f"{p}:{i}", device.label
    raise SystemExit(f"{device.label} is not in pyopencl's list")


class Program:
    """One program's folders and the commands of its sides."""

    def __init__(self, path: Path, args: tuple[str, ...], base: dict[str, str], scratch: Path):
        self.path, self.args, self.base, self.scratch = path, args, base, scratch
        self.count = 0

    def fresh(self, what: str) -> Path:
        self.count += 1
        folder = self.scratch / f"{what}-{self.count}"
        folder.mkdir()
        return folder

    def env(self, caches_on: bool, store: Path | None = None, cache: Path | None = None,
            ) -> dict[str, str]:
        env = dict(self.base)
        if caches_on:
            assert cache is not None
            env.update(PYOPENCL_NO_CACHE="0", POCL_KERNEL_CACHE="1",
                       XDG_CACHE_HOME=str(cache / "xdg"), POCL_CACHE_DIR=str(cache / "pocl"))
        else:
            env.update(PYOPENCL_NO_CACHE="1", POCL_KERNEL_CACHE="0",
                       XDG_CACHE_HOME=str(self.fresh("xdg")),
                       POCL_CACHE_DIR=str(self.fresh("pocl")))
        if store is not None:
            env["CLMODES_CACHE_DIR"] = str(store)
        return env

    def timed(self, argv: list[str], env: dict[str, str], what: str) -> float:
        return benchlib.timed_child(argv, f"{self.path.name}, {what}", env=env,
                                    cwd=self.path.parent, timeout=TIMEOUT_S)[0]

    def plain(self, env: dict[str, str], what: str) -> float:
        return self.timed([sys.executable, str(self.path), *self.args], env, what)

    def clmodes_run(self, store: Path, what: str, report: Path | None = None) -> float:
        extra = ["--report", str(report)] if report is not None else []
        return self.timed(benchlib.clmodes_cli("run", *extra, self.path, *self.args),
                          self.env(False, store), what)

    def cli(self, store: Path, *args: str) -> float:
        return self.timed(benchlib.clmodes_cli(*args), self.env(False, store), " ".join(args[:2]))


def compiled(report: Path) -> int:
    return int(json.loads(report.read_text())["compilation"]["compiled"])


def measure(program: Program, reps: int, log) -> dict[str, object]:
    """Medians of each side over `reps` rotated rounds, and the untimed preparations."""
    cache = program.fresh("cache")
    program.plain(program.env(True, cache=cache), "filling the caches")
    filled = program.fresh("store")
    program.clmodes_run(filled, "filling the store")
    bundle = program.scratch / "programs.clmb"
    program.cli(filled, "bundle", "export", str(bundle))
    imports: list[float] = []
    shipped: list[Path] = []
    builds: dict[str, int] = {}

    def run(side: str, index: int) -> float:
        if len(imports) == index:  # the round's first side: its bundle import, untimed
            shipped.append(program.fresh("shipped"))
            imports.append(program.cli(shipped[-1], "bundle", "import", str(bundle),
                                       "--allow-unsigned"))
        report = program.fresh("report") / "report.json"
        if side == "plain cold":
            return program.plain(program.env(False), side)
        if side == "pyopencl cache":
            return program.plain(program.env(True, cache=cache), side)
        store = {"clmodes cold": program.fresh("store"), "warmed": filled,
                 "bundle": shipped[index]}[side]
        seconds = program.clmodes_run(store, side, report)
        builds[side] = compiled(report)
        return seconds

    samples = benchlib.rounds(SIDES, reps, run, lambda index, found: log(
        f"  rep {index + 1}/{reps}: " + ", ".join(f"{side} {found[side][-1]:.2f} s"
                                                  for side in SIDES)))
    median = benchlib.medians(samples)
    return {"seconds": median, "samples": samples, "import_s": statistics.median(imports),
            "compiled_from_source": builds,
            **{name: median[a] / median[b] for name, (a, b) in RATIOS.items()}}


def main() -> None:
    parse = benchlib.parser(__doc__, reps=3, smoke_help=f"one program ({SMOKE_PROGRAM}), one "
                                                        "rep (ci/bench/run --smoke)")
    parse.add_argument("--device", default=os.environ.get("CLMODES_DEVICE", "intel"),
                       help="a substring of clmodes' device label (default: $CLMODES_DEVICE "
                            "or intel)")
    parse.add_argument("--programs", help="comma-separated short names (default: all)")
    args = parse.parse_args()
    log = benchlib.progress_logger(False)
    import clmodes  # noqa: F401 - first: it registers Intel's runtime before any OpenCL call
    every = programs()
    names = ([SMOKE_PROGRAM] if args.smoke
             else args.programs.split(",") if args.programs else list(every))
    unknown = [name for name in names if name not in every]
    if unknown:
        raise SystemExit(f"unknown program(s) {unknown}; known: {', '.join(every)}")
    reps = 1 if args.smoke else args.reps
    ctx, label = pyopencl_ctx(args.device)
    base = benchlib.child_env(path=(), device=args.device, drop=("COLUMNS", "LINES"),
                              PYOPENCL_CTX=ctx, DISPLAY="", WAYLAND_DISPLAY="",
                              PYTHONWARNINGS="ignore")
    before = benchlib.loadavg_1min()
    log(f"device {label} (PYOPENCL_CTX={ctx}); {reps} rep(s); 1-min load {before}")
    results = {}
    for name in names:
        path, program_args = every[name]
        log(f"{name}:")
        scratch = Path(tempfile.mkdtemp(prefix=f"clmodes-bench-first-{name}-"))
        try:
            results[name] = measure(Program(path, program_args, base, scratch), reps, log)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    after = benchlib.loadavg_1min()
    print(f"device {label}; {reps} rep(s), medians{benchlib.load_text(before, after)}")
    print(f"{'program':28s}" + "".join(f"{side:>15s}" for side in SIDES) + f"{'import':>9s}"
          + "   plain cold/warmed  cache/warmed  plain cold/bundle")
    for name, found in results.items():
        print(f"{name:28s}" + "".join(f"{found['seconds'][side]:13.2f} s" for side in SIDES)
              + f"{found['import_s']:7.2f} s"
              + f"{found['plain_cold_over_warmed']:17.2f}x"
              + f"{found['pyopencl_cache_over_warmed']:13.2f}x"
              + f"{found['plain_cold_over_bundle']:15.2f}x")
    benchlib.write_json(args.json, {"device": label, "pyopencl_ctx": ctx, "reps": reps,
                                    "load": [before, after], "programs": results})


if __name__ == "__main__":
    main()
