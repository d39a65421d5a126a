#!/usr/bin/env python3
"""The store's multi-process torture, as long as you like (the suite runs 4 rounds):

    python ci/torture_store.py --rounds 300 --device intel [--workers 4] [--seed 1] [--full-disk]

Each round starts workers at staggered moments on one store; each opens, tunes, warms,
reads, prunes, exports, imports and closes at random, and some are stopped by SIGKILL,
SIGINT or SIGTERM at random moments. After every round each write a worker reported
committed must be in the store for a fresh connection and `PRAGMA integrity_check` must
pass; at the end a warm then `clmodes check` must pass with results checked
(`tests/support/torture.py`). Beside the workers, each round starts one `clmodes`
command (`cache info`, `warm`, `devices`), most stopped by Ctrl-C or SIGTERM in its first
second: one line and 130/143, or 0, never a traceback or a silent death; a warm that
said 0 must leave a store `clmodes check` passes on. `--full-disk`: the store's folder
is a 256 MiB tmpfs of its own (a private mount namespace: root), filled to its last byte
for a moment in about half the rounds: a write refused then is said (exit 4,
`StoreWriteError`), never reported committed. Exit 1 with the problems listed if any."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.torture import torture  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--device", default="intel", help="a CLMODES_DEVICE selector")
    parser.add_argument("--store", type=Path, help="the store's folder (default: a new one)")
    parser.add_argument("--full-disk", action="store_true",
                        help="the store on a 256 MiB tmpfs, filled for a moment in half the rounds")
    args = parser.parse_args()
    directory = args.store or Path(tempfile.mkdtemp(prefix="clmodes-torture-"))
    if args.full_disk and not os.environ.get(MOUNTED):
        return on_own_file_system(directory)
    started = time.perf_counter()
    problems = torture(directory, args.rounds, args.seed, args.device, args.workers, args.steps,
                       report=lambda line: print(line, flush=True), full_disk=args.full_disk)
    print(f"{time.perf_counter() - started:.0f} s; store {directory}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


MOUNTED = "CLMODES_TORTURE_MOUNTED"


def on_own_file_system(directory: Path) -> int:
    """This script again, in a private mount namespace with a 256 MiB tmpfs on `directory`
    (the namespace ends with it: nothing to unmount)."""
    argv, skip = [], False
    for argument in sys.argv[1:]:  # all but --store (given again below)
        if not skip and not argument.startswith("--store"):
            argv.append(argument)
        skip = argument == "--store"
    mount = 'mount -t tmpfs -o size=256m tmpfs "$0" && exec "$@"'
    return subprocess.run(["unshare", "--mount", "sh", "-c", mount, str(directory), sys.executable,
                           __file__, *argv, "--store", str(directory)],
                          env={**os.environ, MOUNTED: "1"}).returncode


if __name__ == "__main__":
    sys.exit(main())
