#!/usr/bin/env python
"""What the import's child-process load check costs: a kernels_cl MLP bundle imported with
and without it, side by side.

    python ci/bench/bench_bundle_import.py [--json OUT] [--reps N] [--device SUBSTRING] [--smoke]

Once: `clmodes warm kernels_cl.workloads:mlp` on the device ($CLMODES_DEVICE, else
"portable": PoCL; $KERNELS_CL_* sizes apply, defaults are small), `bundle export --sign` with a fresh key.
Then per rep, in turn (rotated, so background load hits both alike), each into a fresh
store in this process: `bundle.install(..., load_check=True)` and `load_check=False`.
Prints the medians, their difference (the check's cost: one child process starting
Python, pyopencl and the platforms, then loading each binary) and their ratio.
`--smoke`: `ci/bench/warm_workload.py` at 4096 elements instead of the MLP, one rep, on
$CLMODES_DEVICE or the default device.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import benchlib  # noqa: E402


def make_bundle(folder: Path, device: str | None, workload: str) -> tuple[Path, Path]:
    env = benchlib.child_env(store=folder / "maker", device=device, WARM_BENCH_SIZE="4096")
    key, path = folder / "publisher.key", folder / "mlp.clmodes"
    for args in (["bundle", "keygen", key], ["warm", workload],
                 ["bundle", "export", path, "--sign", key]):
        benchlib.run_child(benchlib.clmodes_cli(*args), f"clmodes {args[0]}", env=env, echo=True)
    return path, key.with_name(key.name + ".pub")


def main() -> None:
    args_parser = benchlib.parser(__doc__, reps=7, smoke_help="seconds (ci/bench/run --smoke)")
    args_parser.add_argument("--device", default=os.environ.get("CLMODES_DEVICE") or "portable",
                             help="$CLMODES_DEVICE, else portable (PoCL)")
    args = args_parser.parse_args()
    workload = "kernels_cl.workloads:mlp"
    if args.smoke:
        workload, args.reps = "warm_workload:workload", 1
        args.device = os.environ.get("CLMODES_DEVICE")  # unset: the default device
    folder = Path(tempfile.mkdtemp(prefix="clmodes-bench-import-"))
    os.environ["CLMODES_CONFIG_DIR"] = str(folder / "config")
    started = time.perf_counter()
    path, public = make_bundle(folder, args.device, workload)
    print(f"warm + export: {time.perf_counter() - started:.1f} s", flush=True)

    import clmodes
    from clmodes import bundle

    binaries = 0

    def install(check: bool, rep: int) -> float:
        nonlocal binaries
        store = clmodes.Store(folder / f"user-{rep}-{check}")
        begin = time.perf_counter()
        report = bundle.install(path, store, trusted_keys=[public], load_check=check)
        seconds = time.perf_counter() - begin
        assert not report["refused"], report["refused"]
        binaries = report["added"]["binaries"]
        store.close()
        return seconds

    times = benchlib.rounds([True, False], args.reps, install)
    with_check, without = benchlib.medians(times).values()
    print(f"bundle: {path.stat().st_size / 1024:.0f} KB, {binaries} binaries added per import")
    print(f"import without load check: {without * 1000:.0f} ms (median of {args.reps})")
    print(f"import with load check:    {with_check * 1000:.0f} ms")
    print(f"the check costs {(with_check - without) * 1000:.0f} ms, "
          f"{with_check / without:.1f}x the import without it")
    benchlib.write_json(args.json, {"with_check_s": times[True], "without_check_s": times[False],
                                    "ratio_with_check_over_without": with_check / without,
                                    "workload": workload, "smoke": args.smoke,
                                    "binaries": binaries, "bundle_bytes": path.stat().st_size})


if __name__ == "__main__":
    main()
