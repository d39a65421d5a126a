"""Racing candidates timed with OpenCL profiling events, and choosing a winner robustly.

A run is timed by the process's timer (`tune.measuring.timing`), by default
`clmodes.measure.device_seconds`: the sum of START..END over every
launch a candidate makes on the measurement stream, device time only, so host-side Python
overhead and queueing gaps do not decide between kernels. A sample is one run, or for a
candidate whose warm-up ran under `RacePolicy.sample_min_s` the median of several
(`RacePolicy.repeats`). Each candidate is run `warmup` times first (PoCL generates a
kernel's work-group function at its first enqueue per local size, which costs hundreds of
milliseconds and must not be counted).

Racing keeps tuning cheap and fair: every candidate is warmed up, then sampled in rounds
(one sample each per round, rotating order, so machine noise falls on all alike); after
`first_samples` rounds any candidate whose *fastest* sample (one more taken first) is
slower than `drop_ratio` times the best median is dropped; the rest get more rounds, up to `total_samples` or
until a round costs more than `sample_budget_s`; a race ranks by median (a tune's decision is
its final's, `finals.py`).

Screening keeps tuning cost from following the size of the work: the warm-up runs are
timed too (PoCL generates code *before* a command's START, so the device time of a first
run is clean; Intel's CPU runtime runs a kernel's first launch up to 2x slower). A
candidate whose warm-up took more than `screen_ratio` times the fastest warm-up is
dropped before sampling. At 8x the MLP's batch that spares the clearly slow hand-written
matmul candidates three full-size runs each (their medians: `candidates_measured` of
ci/bench/bench_kernels.py with KERNELS_CL_MATMUL=candidates). `screen_ratio` = 3 is the
drop ratio times that 2x first-run penalty, so a candidate that would survive the first
drop cannot be screened out; a candidate is timed again (up to `screen_timings` in all)
before it is screened out, and screened on its best timing: the first one warmed up also absorbs
the queue's one-time start-up costs, and on a loaded machine any one timing may have
taken a burst of another process's work (one such timing screened out the best config of
a tune, which then chose 1.4x of it). Runs under `screen_min_s` are never screened: one
timing of a sub-millisecond kernel is mostly noise, and sampling it costs nothing worth
saving.

The race measures one generation; the decision between races is the final's
(`tune.measuring.finals`).
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
from collections.abc import Callable, Mapping

from clmodes.measure import executing
from clmodes.stream import Stream
from clmodes.tune.measuring import timing
from clmodes.tune.measuring.policy import RacePolicy, RunsAs, real_timing
from clmodes.records.measurement import CandidateMeasurement, Drop, Dropped, Outcome

log = logging.getLogger("clmodes")

Candidate = Callable[..., object]
Round = dict[str, float]  # name -> one sample, for the candidates timed in one round


@dataclasses.dataclass
class Measurement:
    name: str
    samples: list[float] = dataclasses.field(default_factory=list)
    discarded: int = 0  # timings that could not be real (not finite, not positive)
    repeats: int = 1  # runs per sample (each sample is their median)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def as_measurement(self) -> CandidateMeasurement:
        return CandidateMeasurement(Outcome.MEASURED, self.median, tuple(self.samples),
                                    self.discarded, self.repeats)


def sample(candidate: Candidate, stream: Stream, args: tuple[object, ...],
           repeats: int = 1, runs_as: RunsAs = RunsAs.MEDIAN, name: str = "") -> float:
    """One sample of a candidate: the median (or fastest, `runs_as`) over `repeats` runs
    of the seconds of device time over all the launches a run made
    (`clmodes.measure.NothingLaunched` if it made none: it is dropped with a warning). A
    timing that cannot be real is returned as is, so that the caller discards it. Each
    run is timed by the process's timer (`tune.measuring.timing`: the device's profiling events,
    or recorded times replayed), which `name` tells which candidate it times."""
    timer = timing.current()
    runs = [timer.time(name, stream, lambda: candidate(stream, *args)) for _ in range(repeats)]
    unreal = [seconds for seconds in runs if not real_timing(seconds)]
    if unreal:
        return unreal[0]
    return min(runs) if runs_as is RunsAs.FASTEST else statistics.median(runs)


def warm_up_timing(candidate: Candidate, stream: Stream, args: tuple[object, ...],
                   policy: RacePolicy, name: str = "", first: float | None = None) -> float:
    """A candidate's warm-up timing, what its runs per sample follow (`RacePolicy.repeats`):
    the fastest of up to `warmup_timings` samples, re-timed only while under
    `retime_below_s` (a slow kernel's one run per sample needs no second look, and its
    runs are costly). Why not one timing: load only ever adds time, and one warm-up of a
    0.5 ms GEMM under 3 busy processes on Intel took up to 4.5 ms, which gave it one run
    per sample; replayed on recorded finals under that load, the final then chose a
    1.5x slower config in 11 of 40 (with the fastest of three, and three runs for two:
    0 of 40). A timing that cannot be real is returned as is, for the caller to discard.
    `first`: a timing of a run already made (the check's, `reference.Checker.timings`),
    counted as the first of them instead of running once more."""
    fastest = first if first is not None and real_timing(first) else sample(
        candidate, stream, args, name=name)
    for _ in range(policy.warmup_timings - 1):
        if not real_timing(fastest) or fastest >= policy.retime_below_s:
            break
        again = sample(candidate, stream, args, name=name)
        if real_timing(again):
            fastest = min(fastest, again)
    return fastest


def drop_untimed(measured: dict[str, Measurement], dropped: dict[str, Dropped]) -> None:
    """A candidate with no real timing at all cannot be compared: it is dropped."""
    for name, measurement in list(measured.items()):
        if not measurement.samples:
            dropped[name] = Dropped(Drop.UNTIMED, f"no real timing ({measurement.discarded} discarded)")
            measured.pop(name)


def race(
    candidates: Mapping[str, Candidate],
    stream: Stream,
    args: tuple[object, ...],
    policy: RacePolicy,
    describe: str,
    rounds: list[Round] | None = None,
    timed: Mapping[str, float] | None = None,
) -> tuple[dict[str, Measurement], dict[str, Dropped]]:
    """Measure candidates under `StreamModeOverride(EXECUTE)`; return (kept, dropped).

    Every candidate is warmed up first, then sampled in *rounds*, one sample of each per
    round in a rotating order. Machine noise (another process taking a core for a while)
    then lands on every candidate alike instead of on whichever was being measured, and
    drops compare candidates over the same rounds. Each round's samples are appended to
    `rounds` when given: they are paired rounds, which the final starts from
    (`finals.play`'s `prior`). `timed`: a timing of a run each candidate already made on
    `stream` after its first launch's code generation (the check's), its first warm-up
    timing."""
    dropped: dict[str, Dropped] = {}
    with executing(stream):
        measured = _warm_up(candidates, stream, args, policy, describe, dropped, timed or {})
        for index in range(policy.total_samples):
            names = list(measured)
            shift = index % max(len(names), 1)
            round_time = 0.0
            row: Round = {}
            for name in names[shift:] + names[:shift]:
                try:
                    seconds = sample(candidates[name], stream, args, measured[name].repeats,
                                     name=name)
                except Exception as error:  # noqa: BLE001 - any failure drops the candidate
                    log.warning("%s: candidate %r dropped: %s", describe, name, error)
                    dropped[name] = Dropped(Drop.FAILED, f"failed: {error}")
                    measured.pop(name)
                    continue
                if not real_timing(seconds):
                    measured[name].discarded += 1
                    log.info("%s: candidate %r: discarded a timing of %r s", describe, name, seconds)
                    continue
                measured[name].samples.append(seconds)
                row[name] = seconds
                round_time += seconds
            if rounds is not None:
                rounds.append(row)
            if index + 1 == policy.first_samples:
                drop_slower(measured, dropped, policy, lambda name: sample(
                    candidates[name], stream, args, measured[name].repeats, name=name))
            if index + 1 >= policy.first_samples and _enough(measured, round_time, policy):
                break
    drop_untimed(measured, dropped)
    return measured, dropped


def _warm_up(
    candidates: Mapping[str, Candidate], stream: Stream, args: tuple[object, ...],
    policy: RacePolicy, describe: str, dropped: dict[str, Dropped],
    timed: Mapping[str, float],
) -> dict[str, Measurement]:
    """Run each candidate `warmup` times (first-launch code generation happens here, not
    in a sample); those that raise are dropped with a warning, those far slower than the
    fastest are screened out (see the module's doc). A candidate `timed` already ran
    once (the check's run, which paid that code generation): that run is its first
    warm-up and its timing the warm-up's first."""
    alive: dict[str, Measurement] = {}
    warm_times: dict[str, float] = {}
    for name, candidate in candidates.items():
        try:
            first = timed.get(name)
            for _ in range(policy.warmup - 1 - (first is not None)):
                candidate(stream, *args)
            if policy.warmup > 1:
                first = None  # the check's run was an untimed one: the last is timed
            seconds = (warm_up_timing(candidate, stream, args, policy, name, first)
                       if policy.warmup > 0 else 0.0)
            alive[name] = Measurement(name)
            if real_timing(seconds) or policy.warmup == 0:
                warm_times[name] = seconds
            else:
                alive[name].discarded += 1  # not screened on it: a timing that cannot be real
        except Exception as error:  # noqa: BLE001 - any failure drops the candidate
            log.warning("%s: candidate %r dropped: %s", describe, name, error)
            dropped[name] = Dropped(Drop.FAILED, f"failed: {error}")
    screen(alive, warm_times, dropped, policy,
           lambda name: sample(candidates[name], stream, args, name=name))
    for name, measurement in alive.items():
        measurement.repeats = policy.repeats(warm_times.get(name))
    return alive


def screen(
    alive: dict[str, Measurement], warm_times: dict[str, float], dropped: dict[str, Dropped],
    policy: RacePolicy, retime: Callable[[str], float],
) -> None:
    """Drop candidates whose warm-up took over `screen_ratio` x the fastest warm-up. Each
    is re-timed before it is dropped (`retime`, up to `screen_timings` timings in all,
    while still over) and judged on its best timing: one run may have paid the queue's
    one-time start-up, or a burst of another process's work (load only ever adds time)."""
    if policy.screen_ratio is None or policy.warmup < 1 or len(alive) < 2:
        return
    timed = [name for name in alive if name in warm_times]
    if len(timed) < 2:
        return
    fastest = min(warm_times[name] for name in timed)
    limit = max(policy.screen_ratio * fastest, policy.screen_min_s)
    for name in timed:
        for _ in range(policy.screen_timings - 1):
            if warm_times[name] <= limit:
                break
            try:
                again = retime(name)
            except Exception as error:  # noqa: BLE001 - it ran once; a failure now screens it
                log.debug("re-timing %r failed: %s", name, error)
                break
            if real_timing(again):
                warm_times[name] = min(warm_times[name], again)
    for name in timed:
        if warm_times[name] > limit:
            dropped[name] = Dropped(Drop.SCREENED, f"screened: warm-up {warm_times[name]:.3g} s "
                                                   f"vs fastest {fastest:.3g} s")
            alive.pop(name)


def drop_slower(measured: dict[str, Measurement], dropped: dict[str, Dropped], policy: RacePolicy,
                resample: Callable[[str], float] | None = None) -> None:
    """Drop candidates whose fastest sample is slower than `drop_ratio` x the best median.
    With `resample`, each is sampled once more first and judged on its fastest sample
    then: on a loaded machine every sample of the best config was once a burst of
    another process's work, and three of them are not enough to tell it from slow."""
    timed = {n: m for n, m in measured.items() if m.samples}
    if not timed:
        return
    best = min(m.median for m in timed.values())
    for name, measurement in timed.items():
        if min(measurement.samples) > policy.drop_ratio * best and resample is not None:
            try:
                again = resample(name)
            except Exception as error:  # noqa: BLE001 - it ran before; judged on those
                log.debug("re-sampling %r failed: %s", name, error)
            else:
                if real_timing(again):
                    measurement.samples.append(again)
        if min(measurement.samples) > policy.drop_ratio * best:
            dropped[name] = Dropped(Drop.SLOWER, f"slower: {measurement.median:.3g} s vs best {best:.3g} s")
            measured.pop(name)


def _enough(measured: dict[str, Measurement], round_time: float, policy: RacePolicy) -> bool:
    """Stop sampling once a round costs more than the budget, or the contenders are slow:
    tuning cost should follow the number of candidates, not the size of the work."""
    timed = [m.median for m in measured.values() if m.samples]
    if not timed:
        return False
    slowest = max(timed)
    return round_time > policy.sample_budget_s or slowest > policy.slow_sample_s


def separated(measurements: list[Measurement]) -> bool:
    """Is the fastest clearly the fastest: its upper quartile below every other's lower
    quartile (a rank test would need more samples than a tune takes)?"""
    if len(measurements) < 2:
        return True
    ranked = sorted(measurements, key=lambda m: m.median)
    best, rest = ranked[0], ranked[1:]
    return all(_quartiles(best.samples)[1] < _quartiles(m.samples)[0] for m in rest)


def _quartiles(samples: list[float]) -> tuple[float, float]:
    if len(samples) < 2:
        return samples[0], samples[0]
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return q1, q3
