"""A race's knobs (`RacePolicy`) and what a timing must be to count (`real_timing`).

Apart from `racing` so that what a tunable is declared with costs no more than its own
knobs: `Tunable(policy=RacePolicy())` runs at import time for every tunable a library
defines, and a warmed process (every key stored) never races; loading the race with its
timer and records cost a warmed start ~4 ms of its ~0.5 s (ci/bench/bench_warm_start.py).
"""

from __future__ import annotations

import dataclasses
import enum
import math


class RunsAs(enum.Enum):
    """What one sample of several runs is: their median, or their fastest."""

    MEDIAN = "median"
    FASTEST = "fastest"


@dataclasses.dataclass(frozen=True)
class RacePolicy:
    warmup: int = 1
    first_samples: int = 3
    total_samples: int = 7
    drop_ratio: float = 1.5
    screen_ratio: float | None = 3.0  # None: every warmed-up candidate is sampled
    screen_min_s: float = 1e-3  # runs shorter than this cost too little to skip on one timing
    screen_timings: int = 3  # a candidate is screened out on the best of this many timings
    slow_sample_s: float = 0.25  # a candidate this slow per sample gets no extra samples
    sample_budget_s: float = 0.5  # device seconds per round beyond which no more rounds
    finalists: int = 3  # the best this many overall meet in the final (`tune.measuring.finals`)...
    race_finalists: int = 2  # ...and each race's best this many (a loaded race's too)...
    finalists_max: int = 8  # ...at most this many finalists in all
    final_rounds: int = 5  # paired rounds per block of the final...
    rerace_limit: int = 3  # ...and blocks at most, while the leader is not settled
    settle_fraction: float = 0.8  # settled: the leader faster in this share of rounds...
    tie_ratio: float = 1.02  # ...or (after two blocks) the two within this ratio
    sample_min_s: float = 1e-3  # a shorter run is repeated within a sample, up to...
    repeats_max: int = 16  # ...this many runs, the sample their median (see `repeats`)
    final_runs: int = 3  # a final's sample is the median of at least this many runs...
    final_runs_below_s: float = 1e-2  # ...for a finalist whose warm-up is under this
    warmup_timings: int = 3  # a warm-up is timed up to this many times in all...
    retime_below_s: float = 1e-2  # ...while its fastest is under this (`warm_up_timing`)
    final_runs_as: RunsAs = RunsAs.FASTEST  # a final's sample of several runs (below)

    def repeats(self, warm_up_s: float | None) -> int:
        """Runs per sample for a candidate whose warm-up took `warm_up_s`: enough to fill
        `sample_min_s`, at most `repeats_max`. Why: one run of a 10 µs kernel on a CPU
        runtime is mostly the wake-up of its worker threads and the other candidates'
        code leaving the caches; Intel's timed the MLP's attention GEMMs at 8-30 µs one
        run each, where 5 runs back to back give 6-7 µs, and the noise picked a config
        8-11% slower than the hand-written kernel it ties with. Never two where three are
        allowed: the median of two runs is their mean, so one run that another process's
        burst delayed moves the sample by half the delay; of three, the burst must hit two."""
        if warm_up_s is None or not real_timing(warm_up_s) or warm_up_s >= self.sample_min_s:
            return 1
        runs = max(1, min(self.repeats_max, math.ceil(self.sample_min_s / warm_up_s)))
        return 3 if runs == 2 and self.repeats_max >= 3 else runs

    def final_repeats(self, warm_up_s: float | None) -> int:
        """Runs per sample in a final: `repeats`, and at least `final_runs` for a finalist
        whose warm-up took under `final_runs_below_s`. Why more there than in a race: the
        final decides between candidates a few percent apart, and a run under load can take
        5x its quiet time. Replayed on finals recorded under 3 busy processes (PoCL 3.1,
        the bench_decisions subspace's 2-5 ms GEMMs, one run a sample by `repeats`), one
        run a sample chose within 1.05 of the quiet best in 26 of 30 finals, the median of
        three runs in 30 of 30 (scoring by a lower quantile instead: no better). Only the
        final pays it: its few finalists, not the whole space. Why under 10 ms and not
        20 ms: that evidence was 2-5 ms kernels, and at 20 ms the 13-14 ms matmul of
        ci/bench/bench_tune.py on PoCL 3.0 paid three runs a sample, up to 120 runs in a
        block of eight finalists, for a choice one run a sample makes as well
        (docs/decisions/race-sampling.md)."""
        runs = self.repeats(warm_up_s)
        if warm_up_s is None or not real_timing(warm_up_s) or warm_up_s >= self.final_runs_below_s:
            return runs
        return max(runs, min(self.final_runs, self.repeats_max))


def real_timing(seconds: float) -> bool:
    """A timing that can be real: finite and positive. A NaN once won a tune (every
    comparison with it is false), and one negative timing failed a whole tune."""
    return math.isfinite(seconds) and seconds > 0
