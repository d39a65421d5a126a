#!/usr/bin/env python3
"""The store's multi-process torture, as long as you like (the suite runs 4 rounds):

    python ci/torture_store.py --rounds 300 --device intel [--workers 4] [--seed 1]

Each round starts workers at staggered moments on one store; each opens, tunes, warms,
reads, prunes, exports, imports and closes at random, and some are stopped by SIGKILL,
SIGINT or SIGTERM at random moments. After every round each write a worker reported
committed must be in the store for a fresh connection and `PRAGMA integrity_check` must
pass; at the end a warm then `clmodes check` must pass with results checked
(`tests/support/torture.py`). Exit 1 with the problems listed if any."""

from __future__ import annotations

import argparse
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
    args = parser.parse_args()
    directory = args.store or Path(tempfile.mkdtemp(prefix="clmodes-torture-"))
    started = time.perf_counter()
    problems = torture(directory, args.rounds, args.seed, args.device, args.workers, args.steps,
                       report=lambda line: print(line, flush=True))
    print(f"{time.perf_counter() - started:.0f} s; store {directory}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
