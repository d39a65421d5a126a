"""`Tunable`: an operation with a key function and named candidates, autotuned per device.

The rules (DESIGN §2 Autotune):
- a hit runs the winner on the caller's stream, so its launches get the caller's verdict
  (under COMPILE_AND_AUTOTUNE the real call is dropped);
- one candidate is answered: not tuned, not counted, not persisted;
- a miss under COMPILE_ONLY runs every candidate with queue-only launches, so all their
  kernels join the compile queue; nothing is measured or cached;
- any other miss gathers every candidate's kernels, builds them in one batch, measures
  each on a measurement stream (scratch copies of buffer arguments, so the caller's
  buffers are never written), records the winner in memory and in the store, counts the
  key, then runs the winner on the caller's stream.

With `cost=fn(*args) -> (bytes_moved, flops)` and a throughput probe cached for the device
(`clmodes.probe`), each measured candidate's record gets "roofline": the fraction of the
device's roofline it achieved (`clmodes.roofline_fraction`). A tune never triggers a
probe: a probe costs seconds, and measuring it as a side effect of whichever call missed
a key would make tune times unpredictable; run `clmodes probe` (or `clmodes.probe()`
in a warm workload) first.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping

from clmodes._version import __version__
from clmodes.errors import TuneError
from clmodes.execution import Counter, ProcessMode, process_mode, tally
from clmodes.execution.usage import unrecorded
from clmodes.measure import build_queued, gather, measurement_stream, scratch_copies
from clmodes.probing.lookup import cached as cached_probe
from clmodes.roofline import roofline_fraction
from clmodes.runtime import default_store
from clmodes.stream import Stream
from clmodes.runtime import default_runtime
from clmodes.tune.cache import TuneKey
from clmodes.tune.racing import Candidate, RacePolicy, race

log = logging.getLogger("clmodes")

MeasureArgs = Callable[..., tuple[object, ...]]
Cost = Callable[..., tuple[float, float]]  # cost(*args) -> (bytes moved, FLOPs) of one call


def candidates_checksum(names: list[str]) -> str:
    return hashlib.sha256("\0".join(sorted(names)).encode()).hexdigest()[:16]


_KEY_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # one, not one per call


def canonical_key(value: object, owner: str = "a tunable") -> str:
    """The key as canonical JSON. Mapping keys must be strings: JSON turns `{1: n}` into
    `{"1": n}`, and two different keys would then share one tune entry."""
    _refuse_non_string_keys(value, owner)
    try:
        return _KEY_ENCODER.encode(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{owner}: a tune key must be JSON-able: {error}") from error


def _refuse_non_string_keys(value: object, owner: str) -> None:
    if isinstance(value, dict):
        for name, item in value.items():
            if not isinstance(name, str):
                raise TypeError(f"{owner}: tune key mappings need string keys, not {name!r} "
                                f"({type(name).__name__}): JSON would turn it into {str(name)!r}")
            _refuse_non_string_keys(item, owner)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _refuse_non_string_keys(item, owner)


class Tunable:
    """`Tunable(name, key=fn(*args), candidates={"name": fn(stream, *args)})`.

    `measure_args(stream, *args) -> args` may supply the inputs to measure on (generated
    data); by default buffer arguments are copied onto the measurement stream.

    `cost(*args) -> (bytes_moved, flops)`: what one call moves and computes (all its
    launches, as a sample times them), for the roofline fraction in the tune record.

    Thread-safe: two threads calling one untuned key tune it once; the second blocks until
    the first has a winner, then runs that winner (see `tune.cache`).
    """

    def __init__(
        self,
        name: str,
        key: Callable[..., object],
        candidates: Mapping[str, Candidate],
        *,
        measure_args: MeasureArgs | None = None,
        policy: RacePolicy = RacePolicy(),
        cost: Cost | None = None,
    ) -> None:
        if not candidates:
            raise ValueError(f"tunable {name!r} needs at least one candidate")
        self.name = name
        self.key = key
        self.candidates = dict(candidates)
        self.measure_args = measure_args
        self.policy = policy
        self.cost = cost
        self._names = list(self.candidates)
        self._checksum = candidates_checksum(self._names)

    def __repr__(self) -> str:
        return f"<clmodes.Tunable {self.name!r}: {len(self.candidates)} candidates>"

    def tune_key(self, stream: Stream, args: tuple[object, ...]) -> TuneKey:
        owner = f"tunable {self.name!r}"
        try:
            value = self.key(*args)
        except Exception as error:
            if hasattr(error, "add_note"):  # the caller's own exception, with who called it
                error.add_note(f"raised by the key function of {owner}")
            raise
        return TuneKey(stream.device.fingerprint.model, self.name,
                       canonical_key(value, owner), self._checksum)

    def __call__(self, stream: Stream, *args: object) -> object:
        if len(self._names) == 1:
            return self.candidates[self._names[0]](stream, *args)
        key = self.tune_key(stream, args)
        winner = default_runtime().tunes.winner(key)
        if winner is None:
            if process_mode() is ProcessMode.COMPILE_ONLY:
                # Which candidate the workload uses is not known until the tune.
                with unrecorded():
                    self._gather(measurement_stream(stream), args, key)
                    return self.candidates[self._names[0]](stream, *args)
            winner = default_runtime().tunes.tune_once(key, lambda: self._tune(stream, args, key))
        return self.candidates[winner](stream, *args)

    def winner(self, stream: Stream, *args: object) -> str | None:
        """The cached winner for these arguments, if any (tunes nothing)."""
        if len(self._names) == 1:
            return self._names[0]
        return default_runtime().tunes.winner(self.tune_key(stream, args))

    # -- a miss ------------------------------------------------------------------------

    def _describe(self, key: TuneKey) -> str:
        return f"tunable {self.name!r} key {key.key}"

    def _gather(self, stream: Stream, args: tuple[object, ...], key: TuneKey) -> set[str]:
        """Run every candidate with queue-only launches; return the names that raised."""
        failed = set()
        for name, candidate in self.candidates.items():
            try:
                gather(stream, lambda candidate=candidate: candidate(stream, *args))
            except Exception as error:  # noqa: BLE001 - dropped with a warning
                log.warning("%s: candidate %r dropped: %s", self._describe(key), name, error)
                failed.add(name)
        return failed

    def _tune(self, caller: Stream, args: tuple[object, ...], key: TuneKey) -> str:
        with unrecorded():
            return self._measure_and_record(caller, args, key)

    def _measure_and_record(self, caller: Stream, args: tuple[object, ...], key: TuneKey) -> str:
        started = time.perf_counter()
        stream = measurement_stream(caller)
        caller.finish()  # the caller's pending work may still be writing the inputs
        inputs = (
            tuple(self.measure_args(stream, *args)) if self.measure_args
            else scratch_copies(args, stream)
        )
        failed = self._gather(stream, inputs, key)
        build_queued(stream)  # one batch for every candidate's kernels
        runnable = {n: c for n, c in self.candidates.items() if n not in failed}
        measured, dropped = race(runnable, stream, inputs, self.policy, self._describe(key))
        dropped.update({name: "failed while gathering its kernels" for name in failed})
        if not measured:
            raise TuneError(
                f"{self._describe(key)} on {caller.device.label}: every candidate failed "
                f"({'; '.join(f'{n}: {r}' for n, r in dropped.items())})"
            )
        best = min(measured.values(), key=lambda m: m.median)
        entry = {
            "winner": best.name,
            "statistic": "median",
            "measurements": {n: m.as_record() for n, m in measured.items()},
            "dropped": dropped,
            "device": caller.device.fingerprint.exact,
            "tune_seconds": time.perf_counter() - started,
            "measured_at": time.time(),
            "clmodes": __version__,
        }
        self._score(caller, args, entry, key)
        stored = default_store().put_tune(*key, entry)
        tally(Counter.KEYS)
        log.info(
            "%s tuned on %s: %r (%.3g s median) of %d candidates in %.2f s",
            self._describe(key), caller.device.label, best.name, best.median,
            len(self.candidates), entry["tune_seconds"],
        )
        return stored["winner"] if stored["winner"] in self.candidates else best.name

    def _score(self, caller: Stream, args: tuple[object, ...], entry: dict, key: TuneKey) -> None:
        """Add each measured candidate's roofline fraction to a tune record, when there is
        a cost function and a cached probe result (never measured from here)."""
        if self.cost is None:
            return
        probed = cached_probe(caller.device)
        if probed is None:
            log.debug("%s: no probe cached for %s; no roofline recorded",
                      self._describe(key), caller.device.label)
            return
        try:
            moved, flops = (float(v) for v in self.cost(*args))
            fractions = {
                name: roofline_fraction(probed, measured["median_s"], moved, flops)
                for name, measured in entry["measurements"].items()
            }
        except Exception as error:  # noqa: BLE001 - a scoring problem never fails a tune
            log.warning("%s: cost function failed (%s); no roofline recorded",
                        self._describe(key), error)
            return
        for name, fraction in fractions.items():
            entry["measurements"][name]["roofline"] = fraction
        entry["roofline"] = fractions[entry["winner"]]
        entry["cost"] = {"bytes_moved": moved, "flops": flops,
                         "bandwidth_gbps": probed.bandwidth_gbps,
                         "compute_gflops": probed.compute_gflops}

