"""Pieces the benchmark scripts share (they run as scripts, so this sits beside them)."""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable


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


def write_json(path: str | None, results: object) -> None:
    """Write a benchmark's figures for `ci/bench/run` (nothing when no path was given)."""
    if path:
        with open(path, "w") as handle:
            json.dump(results, handle, indent=2)
            handle.write("\n")


def progress_logger(quiet: bool) -> Callable[[str], None]:
    """A progress printer to stderr (stdout carries the report), silent with --quiet."""
    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr, flush=True)
    return log


def dist_version(name: str) -> str | None:
    """An installed distribution's version, None if unknown (for a benchmark's meta)."""
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001
        return None
