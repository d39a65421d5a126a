"""Candidates checked against a reference before they can win a tune.

A fast candidate that computes the wrong answer must not win because it is fast. So,
before a candidate is raced, it runs once on the tune's inputs and every buffer argument
is read back and compared (`tune.checking.comparison`) with the reference's: the Tunable's
`reference=` candidate, else the first candidate that ran. One that disagrees is dropped
with the reason, and that is persisted like any other measurement (a later tune does not
run it again unless its kernels change).

Which arguments are outputs is not declared, so every buffer argument is compared: one
that nobody writes compares equal anyway. Every checked run starts from the same
contents: a device-side snapshot of the inputs, taken once before any candidate runs
(after `tune.measuring.inputs` replaced unwritten memory, so every candidate sees the same
replaced values) and copied back before each run. A candidate that accumulates into its
output (`c += a * b`) is then judged on one accumulation, like the reference.

Cost per candidate: one device-to-device copy and one read-back of every buffer
argument, and one run; the tune record's "check" says what it took in all. That run is
timed too (`timings`: the device time of its launches, when the tune times candidates
by their profiling events) and is the race's first warm-up timing of the candidate, so
checking costs no run the race would not have made (docs/decisions/race-sampling.md).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable

from typing import Any

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from clmodes.measure import NothingLaunched, executing
from clmodes.tune.measuring import timing
from clmodes.stream import Stream
from clmodes.tune.checking.comparison import disagreement
from clmodes.records.measurement import WRONG, CandidateMeasurement, Drop, Dropped, Outcome
from clmodes.records.tune import CheckInfo
from clmodes.tune.checking.rule import Checking

log = logging.getLogger("clmodes")

Candidate = Callable[..., object]


@dataclasses.dataclass
class CheckCost:
    """What checking took in one tune: candidates run, host seconds, bytes copied. The
    seconds include the runs themselves, and a check run is a candidate's first launch:
    on PoCL that is where its work-group code is generated, which the warm-up paid
    before there was a check."""

    candidates: int = 0
    seconds: float = 0.0
    bytes_copied: int = 0


class Snapshot:
    """The initial contents of the inputs' buffers, kept on the device."""

    def __init__(self, inputs: tuple[object, ...], stream: Stream,
                 positions: Iterable[int] | None) -> None:
        self.inputs, self.stream = inputs, stream
        wanted = set(range(len(inputs)) if positions is None else positions)
        self.kept: dict[int, object] = {
            i: _copy(arg, stream) for i, arg in enumerate(inputs)
            if i in wanted and _buffer_size(arg)}
        stream.finish()
        self.nbytes = sum(_buffer_size(inputs[i]) for i in self.kept)

    def restore(self) -> None:
        for i, kept in self.kept.items():
            arg: Any = self.inputs[i]
            saved: Any = kept
            if isinstance(arg, cla.Array):
                cl.enqueue_copy(self.stream.queue, arg.base_data, saved.base_data,
                                byte_count=arg.nbytes, dst_offset=arg.offset)
            else:
                cl.enqueue_copy(self.stream.queue, arg, saved, byte_count=arg.size)

    def read(self) -> dict[int, np.ndarray]:
        found = {}
        for i in self.kept:
            arg: Any = self.inputs[i]
            if isinstance(arg, cla.Array):
                found[i] = arg.get(queue=self.stream.queue)
            else:
                found[i] = np.empty(arg.size, np.uint8)
                cl.enqueue_copy(self.stream.queue, found[i], arg)
        self.stream.finish()
        return found


def _buffer_size(arg: object) -> int:
    """Bytes of a buffer argument that can be snapshot (contiguous arrays, buffers); 0
    for anything else (scalars, images, strided views)."""
    if isinstance(arg, cla.Array):
        contiguous = arg.flags.c_contiguous or arg.flags.f_contiguous
        return arg.nbytes if contiguous and arg.size and arg.base_data is not None else 0
    if isinstance(arg, cl.MemoryObjectHolder) and not isinstance(arg, cl.Image):
        return arg.size
    return 0


def _copy(arg: Any, stream: Stream) -> object:
    if isinstance(arg, cla.Array):
        return arg.copy(queue=stream.queue)
    buffer = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, arg.size)
    cl.enqueue_copy(stream.queue, buffer, arg)
    return buffer


class Checker:
    """Checks the candidates of one tune against its reference (see the module's doc);
    with `checking=None` it checks nothing and passes every candidate.

    A measurement record of a checked candidate says which reference it met (or did
    not): "reference". Stored records are reused only when they were checked against
    the reference in force (any, when the Tunable names none), so that a measurement
    made with checking off, or against another reference, is taken again."""

    def __init__(self, checking: Checking | None, stream: Stream, describe: str) -> None:
        self.checking, self.stream, self.describe = checking, stream, describe
        self.enabled = checking is not None
        self.reference: str | None = checking.reference if checking else None
        self.outputs: dict[int, np.ndarray] | None = None
        self.checked: dict[str, str] = {}  # name -> the reference it agreed with
        self.disagreed: dict[str, str] = {}  # name -> the reference it disagreed with
        self.timings: dict[str, float] = {}  # name -> its last check's run, device seconds
        self.cost = CheckCost()
        self.inputs: tuple[object, ...] = ()
        self.snapshot: Snapshot | None = None

    def start(self, inputs: tuple[object, ...]) -> None:
        """Snapshot the tune's inputs, before any candidate writes them."""
        if self.checking is not None:
            self.inputs = inputs
            self.snapshot = Snapshot(inputs, self.stream, self.checking.positions)

    def reusable(self, record: CandidateMeasurement) -> bool:
        """May a stored measurement stand for this tune (see the class's doc)?"""
        if self.checking is None:
            return record.outcome is not Outcome.WRONG
        if record.outcome is Outcome.FAILED:
            return True
        met = record.reference
        return met is not None and self.checking.reference in (None, met)

    def note(self, name: str, record: CandidateMeasurement) -> None:
        """A measurement known for `name`: if it was checked and agreed, it stays checked,
        and (no reference named) its reference is adopted, so that a resumed tune checks
        against the one earlier tunes of the key used."""
        met = record.reference
        if self.checking is None or met is None or record.outcome in (Outcome.FAILED, Outcome.WRONG):
            return
        self.checked[name] = met
        if self.reference is None and self.outputs is None:
            self.reference = met  # the first one met (a record is never rewritten to another)

    def extra(self, names: list[str]) -> list[str]:
        """What to gather and build besides `names`: the reference, while it has not run."""
        wanted = self.reference if self.enabled and self.outputs is None else None
        return [wanted] if wanted is not None and wanted not in names else []

    def marked(self, name: str, record: CandidateMeasurement) -> CandidateMeasurement:
        """`record` with the reference `name` was checked against, if it was."""
        met = self.checked.get(name) or self.disagreed.get(name)
        return dataclasses.replace(record, reference=met) if met else record

    def as_info(self) -> CheckInfo | None:
        """The tune record's "check": the reference, and what checking cost."""
        if self.checking is None:
            return None
        return CheckInfo(self.reference, self.cost.candidates, self.cost.seconds,
                         self.cost.bytes_copied)

    def check(self, names: list[str], get: Callable[[str], Candidate | None]) -> dict[str, Dropped]:
        """Run each named candidate once and compare; name -> why it is dropped (wrong,
        or failed), for those that are. The reference runs first if it has not."""
        if self.snapshot is None or not names:
            return {}
        dropped: dict[str, Dropped] = {}
        self.timings = {}  # this call's runs only: the race that follows warms these up
        with executing(self.stream):
            first = [self.reference] if self.reference and self.outputs is None else []
            for name in dict.fromkeys(first + names):
                candidate = get(name)
                if candidate is None:
                    continue
                try:
                    got = self._run(candidate, name)
                except Exception as error:  # noqa: BLE001 - a failure drops the candidate
                    self._failed(name, error, dropped)
                    continue
                if self.outputs is None:
                    self.outputs, self.reference = got, name
                    log.debug("%s: candidates checked against %r", self.describe, name)
                why = self._compare(got)
                if why:
                    log.warning("%s: candidate %r dropped: %s", self.describe, name, why)
                    dropped[name] = Dropped(Drop.WRONG, why)
                    self.disagreed[name] = str(self.reference)
                else:
                    self.checked[name] = str(self.reference)
        return {name: why for name, why in dropped.items() if name in names}

    def _run(self, candidate: Candidate, name: str = "") -> dict[int, np.ndarray]:
        assert self.snapshot is not None
        started = time.perf_counter()
        self.snapshot.restore()
        with self.stream.capture_events() as events:
            candidate(self.stream, *self.inputs)
        if not events:  # as racing would say: its output is not what is wrong with it
            raise NothingLaunched("it launched nothing on the stream it was given")
        got = self.snapshot.read()  # finishes the stream: the events are complete
        if name and isinstance(timing.current(), timing.DeviceTimer):
            # What `DeviceTimer` would have returned for this run (a replayed tune's
            # timer answers for itself: it is not given a real run's time).
            self.timings[name] = sum(e.profile.end - e.profile.start for e in events) * 1e-9
        self.cost.candidates += 1
        self.cost.seconds += time.perf_counter() - started
        self.cost.bytes_copied += 2 * self.snapshot.nbytes
        return got

    def _failed(self, name: str, error: Exception, dropped: dict[str, Dropped]) -> None:
        log.warning("%s: candidate %r dropped: %s", self.describe, name, error)
        if name == self.reference and self.outputs is None:
            if self.checking is not None and self.checking.reference:
                log.warning("%s: the reference %r failed; checking against the first "
                            "candidate that runs instead", self.describe, name)
            self.reference = None
        dropped[name] = Dropped(Drop.FAILED, f"failed: {error}")

    def _compare(self, got: dict[int, np.ndarray]) -> str | None:
        assert self.outputs is not None and self.checking is not None
        for position, reference in self.outputs.items():
            why = disagreement(got[position], reference, self.checking.tolerance)
            if why:
                return f"{WRONG} {self.reference!r}: argument {position}: {why}"
        return None
