"""Pieces the benchmark scripts share (they run as scripts, so this sits beside them)."""

from __future__ import annotations

import gc
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
