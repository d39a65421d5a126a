"""Verify once on the target: an answer not measured here is timed here, once.

A decision graded from another model (`tune.answers.nearest`) or imported from another host was
never timed on this machine. The first compile-mode pass (`warm`, COMPILE_AND_AUTOTUNE)
that meets it races its winner against the record's runner-up, a few interleaved samples
(`POLICY`), on this device: the winner is kept (the record says "verified here", with
both medians) unless the runner-up is faster by more than `TOLERANCE`, in which case the
key is tuned here in full and the new record says what it replaced and why. Either way
the record is rewritten, so it is verified once per store, not once per process.

In EXECUTE nothing is timed (a production call must not pay a race), unless
`CLMODES_VERIFY=first-use` asks for it. A COMPILE_ONLY pass queues the runner-up's
kernels too, so the warm's one batch build holds what the race will launch.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import time
from collections.abc import Callable
from typing import Any

from clmodes import settings
from clmodes.execution import ProcessMode
from clmodes.measure import build_queued, gather, measurement_stream, scratch_copies
from clmodes.records.tune import HOST, TuneRecord
from clmodes.stream import Stream
from clmodes.tune.measuring.inputs import log_replaced, replace_unwritten
from clmodes.tune.measuring.policy import RacePolicy
from clmodes.tune.measuring.racing import race

log = logging.getLogger("clmodes")

Lookup = Callable[[str], Callable[..., object] | None]

ENV = settings.VERIFY.name
TOLERANCE = 1.10  # re-tune when the runner-up's median is under the winner's / 1.10
POLICY = RacePolicy(warmup=1, first_samples=5, total_samples=5, drop_ratio=math.inf,
                    screen_ratio=None, finalists=2)


def due(mode: ProcessMode) -> bool:
    """Does a pass in `mode` time a pending answer? COMPILE_AND_AUTOTUNE always; EXECUTE
    only under CLMODES_VERIFY=first-use; COMPILE_ONLY never (its launches only queue)."""
    choice = settings.VERIFY.get()
    return mode is ProcessMode.COMPILE_AND_AUTOTUNE or (
        mode is ProcessMode.EXECUTE and choice == "first-use")


def runner_up(record: TuneRecord, lookup: Lookup) -> str | None:
    """The fastest candidate the record measured other than its winner, still a candidate."""
    return next((n for n in record.measurements if n != record.winner and lookup(n) is not None),
                None)


def queue_runner_up(record: TuneRecord, lookup: Lookup, caller: Stream,
                    args: tuple[object, ...]) -> None:
    """Under COMPILE_ONLY: queue the runner-up's kernels with the workload's."""
    name = runner_up(record, lookup)
    candidate = lookup(name) if name else None
    if candidate is not None:
        stream = measurement_stream(caller)
        gather(stream, lambda: candidate(stream, *args))


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What timing the answer here found."""

    winner: str
    winner_s: float | None
    runner_up: str | None
    runner_up_s: float | None
    samples: int
    was: str  # the grade, or "imported from HOST"

    @property
    def kept(self) -> bool:
        if self.winner_s is None:
            return False  # the winner failed here: tune
        if self.runner_up_s is None:
            return True
        return self.winner_s <= self.runner_up_s * TOLERANCE

    def as_json(self) -> dict[str, Any]:
        """The record's "verified" field (`TuneRecord.verified`)."""
        return {"outcome": "kept" if self.kept else "re-tuned", "kept": self.kept,
                "host": HOST, "at": time.time(), "was": self.was, "winner": self.winner,
                "winner_s": self.winner_s, "runner_up": self.runner_up,
                "runner_up_s": self.runner_up_s, "samples": self.samples,
                "tolerance": TOLERANCE}


def time_answer(record: TuneRecord, lookup: Lookup, caller: Stream, args: tuple[object, ...],
                measure_args: Callable[..., tuple[object, ...]] | None,
                describe: str) -> Verdict:
    """Race the record's winner against its runner-up on this device (scratch inputs,
    unwritten memory replaced, as a tune measures)."""
    winner = record.winner
    second = runner_up(record, lookup)
    names = [n for n in (winner, second) if n is not None]
    candidates = {n: found for n in names if (found := lookup(n)) is not None}
    stream = measurement_stream(caller)
    caller.finish()
    inputs = tuple(measure_args(stream, *args)) if measure_args else scratch_copies(args, stream)
    if not measure_args:
        log_replaced(describe, replace_unwritten(inputs))
    for candidate in candidates.values():
        gather(stream, functools.partial(candidate, stream, *inputs))
    build_queued(stream)
    measured, _ = race(candidates, stream, inputs, POLICY, describe)
    median = {n: m.median for n, m in measured.items()}
    was = record.grade if record.grade != "exact" else f"imported from {record.host}"
    return Verdict(winner, median.get(winner), second, median.get(second) if second else None,
                   POLICY.total_samples, was)
