"""docs/contract.md, Autotune: every rule, on real OpenCL."""

import dataclasses
import threading

import numpy as np
import pyopencl as cl
import pytest

import clmodes
from clmodes import (
    Kernel,
    ProcessMode,
    ProcessModeOverride,
    StreamMode,
    TuneError,
    Tunable,
    kernel_variants,
)
from support import fresh
from support.tunables import SOURCE, buffers, keys, launch_twice, make_tunable, slow_and_fast_candidates, unique


def test_miss_tunes_once_then_hits(stream, collector, build_spy):
    tunable = make_tunable(unique(), fresh(SOURCE))
    out, x = buffers(stream)
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 4096)
        assert keys(collector) == 1
        assert build_spy.calls == 1  # all three candidates' kernels in one batch
        np.testing.assert_allclose(out.get(), 2 * x.get())
        tunable(stream, out, x, 4096)  # hit
        assert keys(collector) == 1
        tunable(stream, out, x, 1000)  # another key
        assert keys(collector) == 2
    assert build_spy.calls == 1
    assert tunable.winner(stream, out, x, 4096) in tunable.candidates


def test_winner_record_has_every_measurement(stream):
    tunable = make_tunable(unique(), fresh(SOURCE))
    out, x = buffers(stream)
    tunable(stream, out, x, 4096)
    record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, 4096)))
    assert record["winner"] == tunable.winner(stream, out, x, 4096)
    assert record["statistic"] == "median"
    measured = set(record["measurements"]) | set(record["dropped"])
    assert measured == set(tunable.candidates)
    for m in record["measurements"].values():
        assert len(m["samples_s"]) >= 3 and all(s > 0 for s in m["samples_s"])


def test_one_candidate_is_answered_not_tuned(stream, collector):
    name = unique()
    tunable = make_tunable(name, fresh(SOURCE), defines={"ITEMS": [2]})
    out, x = buffers(stream)
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 4096)
    assert keys(collector) == 0
    np.testing.assert_allclose(out.get(), 2 * x.get())
    rows = clmodes.default_store().query("SELECT COUNT(*) FROM tune WHERE tunable=?", (name,))
    assert rows[0][0] == 0


def test_compile_only_queues_every_candidate_measures_nothing(stream, collector, build_spy):
    source = fresh(SOURCE)
    tunable = make_tunable(unique(), source)
    out, x = buffers(stream)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
        tunable(stream, out, x, 4096)
    assert keys(collector) == 0 and build_spy.calls == 0
    assert tunable.winner(stream, out, x, 4096) is None
    variants = [Kernel(source, "twice", defines={"ITEMS": i}) for i in (1, 4, 16)]
    assert stream.server.queued() >= 3
    assert not any(stream.server.is_obtained(k) for k in variants)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        tunable(stream, out, x, 4096)
        # One batch for every candidate (the override's close may then build the
        # winner alone, to persist its binary without the losers': capture.py).
        assert build_spy.calls == 1 and keys(collector) == 1
    assert all(stream.server.is_obtained(k) for k in variants)


def test_compile_and_autotune_never_writes_callers_buffers(stream, collector):
    tunable = make_tunable(unique(), fresh(SOURCE))
    out, x = buffers(stream)
    before_out, before_x = out.get().tobytes(), x.get().tobytes()
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        tunable(stream, out, x, 4096)
        assert stream.mode is StreamMode.DISCARD
    assert keys(collector) == 1
    assert out.get().tobytes() == before_out and x.get().tobytes() == before_x


def test_failing_candidates_are_dropped_with_a_warning(stream, caplog):
    base = Kernel(fresh(SOURCE), "twice")
    good = kernel_variants(base, launch_twice, defines={"ITEMS": [1, 4]})
    broken = Kernel(fresh("__kernel void twice(__global float* o) { o[0] = nope; }"), "twice")

    def raising(stream, out, x, n):
        raise RuntimeError("this candidate is broken")

    def broken_build(stream, out, x, n):
        return stream.launch(broken, 1, None, out.data)

    tunable = Tunable(unique(), key=lambda out, x, n: n,
                      candidates={**good, "raises": raising, "broken_build": broken_build})
    out, x = buffers(stream)
    with caplog.at_level("WARNING", logger="clmodes"):
        tunable(stream, out, x, 4096)
    assert tunable.winner(stream, out, x, 4096) in good
    text = caplog.text
    assert "'raises' dropped" in text and "'broken_build' dropped" in text
    np.testing.assert_allclose(out.get(), 2 * x.get())


def test_all_candidates_failing_names_tunable_and_key(stream):
    def raising(stream, *args):
        raise RuntimeError("no")

    name = unique("doomed")
    tunable = Tunable(name, key=lambda n: {"n": n}, candidates={"a": raising, "b": raising})
    with pytest.raises(TuneError, match=rf"tunable '{name}' key {{\"n\":7}}"):
        tunable(stream, 7)


def test_oversized_work_group_is_dropped(stream):
    limit = stream.device.cl_device.max_work_group_size
    tunable = make_tunable(unique(), fresh(SOURCE), defines={"ITEMS": [1]},
                           local_sizes=[16, limit * 2])
    out, x = buffers(stream)
    tunable(stream, out, x, 4096)
    assert tunable.winner(stream, out, x, 4096) == "ITEMS=1 local=16"


def test_two_threads_same_key_tuned_once(client, collector):
    tunable = make_tunable(unique(), fresh(SOURCE))
    barrier = threading.Barrier(2)
    results, errors = {}, []

    def worker(i):
        try:
            stream = client.stream(f"tuner-{i}")
            out, x = buffers(stream, seed=i)
            barrier.wait()
            tunable(stream, out, x, 4096)
            results[i] = np.allclose(out.get(), 2 * x.get())
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors and results == {0: True, 1: True}
    assert keys(collector) == 1


def test_measurements_use_profiling_events(stream):
    """A candidate launching nothing cannot be timed: it is dropped, not guessed."""
    base = Kernel(fresh(SOURCE), "twice")
    good = kernel_variants(base, launch_twice, defines={"ITEMS": [4]})
    tunable = Tunable(unique(), key=lambda out, x, n: n,
                      candidates={**good, "idle": lambda stream, *args: None})
    out, x = buffers(stream)
    tunable(stream, out, x, 4096)
    record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, 4096)))
    assert "launched nothing" in record["dropped"]["idle"]


@pytest.mark.parametrize("slow_first", [False, True])
def test_clearly_slower_candidate_is_screened_at_warm_up(stream, slow_first):
    """Its warm-up run already shows it is far slower: it gets no samples (when it ran
    first, only after a second run confirms it)."""
    candidates = slow_and_fast_candidates()
    if slow_first:
        candidates = {"slow": candidates.pop("slow"), **candidates}
    tunable = Tunable(unique(), key=lambda out, x, n: n, candidates=candidates)
    out, x = buffers(stream)
    tunable(stream, out, x, 4096)
    record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, 4096)))
    assert record["winner"] == "ITEMS=4"
    assert record["dropped"]["slow"].startswith("screened")
    assert "slow" not in record["measurements"]


@pytest.mark.parametrize("policy", [
    clmodes.RacePolicy(screen_ratio=None),
    clmodes.RacePolicy(screen_min_s=10.0),  # its run is under the floor: too cheap to skip
], ids=["screening off", "under the floor"])
def test_without_screening_a_slower_candidate_is_dropped_after_first_samples(stream, policy):
    tunable = Tunable(unique(), key=lambda out, x, n: n, candidates=slow_and_fast_candidates())
    tunable.policy = policy
    out, x = buffers(stream)
    tunable(stream, out, x, 4096)
    record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, 4096)))
    assert record["winner"] == "ITEMS=4"
    assert record["dropped"]["slow"].startswith("slower")


def test_key_must_be_jsonable(stream):
    tunable = Tunable(unique(), key=lambda n: object(),
                      candidates={"a": lambda s, n: None, "b": lambda s, n: None})
    with pytest.raises(TypeError, match="JSON"):
        tunable(stream, 1)


@pytest.mark.oclgrind
def test_tiny_tune_on_every_runtime(stream, collector):
    """The whole autotune path at a size the Oclgrind simulator runs in a moment."""
    tunable = make_tunable(unique(), fresh(SOURCE), defines={"ITEMS": [1, 4]})
    tunable.policy = clmodes.RacePolicy(warmup=1, first_samples=2, total_samples=2)
    out, x = buffers(stream, 64)
    before = out.get().tobytes()
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        tunable(stream, out, x, 64)
    assert keys(collector) == 1 and out.get().tobytes() == before
    tunable(stream, out, x, 64)
    np.testing.assert_allclose(out.get(), 2 * x.get())


def test_pooled_buffers_are_copied_too(stream):
    """Memory-pool allocations are not cl.Buffer instances; measurement still copies them."""
    import pyopencl.tools as cltools

    pool = cltools.MemoryPool(cltools.ImmediateAllocator(stream.queue))
    n = 1024
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    pooled_out, pooled_x = pool.allocate(4 * n), pool.allocate(4 * n)
    cl.enqueue_copy(stream.queue, pooled_x, x)
    cl.enqueue_copy(stream.queue, pooled_out, np.zeros(n, np.float32))
    kernel = Kernel(fresh(SOURCE), "twice")

    def launch(stream, kernel, variant, out, x, n):
        return stream.launch(kernel, -(-n // variant["ITEMS"]), None, out, x, n)

    tunable = Tunable(unique(), key=lambda out, x, n: n,
                      candidates=kernel_variants(kernel, launch, defines={"ITEMS": [1, 4]}))
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
        tunable(stream, pooled_out, pooled_x, n)
    back = np.empty(n, np.float32)
    cl.enqueue_copy(stream.queue, back, pooled_out)
    assert not back.any()


def test_a_short_kernel_is_run_several_times_per_sample(stream):
    """A sample of a run far under `sample_min_s` is the median of several runs (the
    record says how many); with `repeats_max=1` one run is one sample."""
    base = kernel_variants(Kernel(fresh(SOURCE), "twice"), launch_twice,
                           defines={"ITEMS": [1, 4]})
    calls = {name: 0 for name in base}

    def counted(name):
        def run(stream, *args):
            calls[name] += 1
            return base[name](stream, *args)
        return run

    out, x = buffers(stream, 256)
    for policy, repeated in ((clmodes.RacePolicy(), True),
                             (clmodes.RacePolicy(repeats_max=1, screen_ratio=None), False)):
        tunable = Tunable(unique(), key=lambda out, x, n: n,
                          candidates={name: counted(name) for name in base})
        tunable.policy = policy
        calls.update(dict.fromkeys(calls, 0))
        tunable(stream, out, x, 256)
        record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, 256)))
        for name, measured in record["measurements"].items():
            runs = measured.get("runs_per_sample", 1)
            assert (runs > 1) is repeated, (name, runs)
            assert 1 <= runs <= policy.repeats_max
            assert calls[name] >= len(measured["samples_s"]) * runs


@pytest.mark.parametrize("warm_up_s, expected", [
    (1e-5, 16), (4e-4, 3), (6e-4, 3), (1e-3, 1), (2e-3, 1), (None, 1), (float("nan"), 1),
    (-1.0, 1),
])
def test_runs_per_sample_fill_the_minimum_sample_time(warm_up_s, expected):
    """Never two runs (their median is their mean) where three are allowed."""
    assert clmodes.RacePolicy().repeats(warm_up_s) == expected
    assert clmodes.RacePolicy(repeats_max=1).repeats(warm_up_s) == 1
    assert clmodes.RacePolicy(repeats_max=2).repeats(6e-4) == 2


@pytest.mark.parametrize("warm_up_s, expected", [
    (1e-5, 16), (4e-4, 3), (5e-3, 3), (9.9e-3, 3), (1e-2, 1), (0.5, 1), (None, 1),
    (float("nan"), 1),
])
def test_a_finals_samples_are_several_runs_below_a_limit(warm_up_s, expected):
    """The final decides between close candidates: a finalist under 10 ms is sampled as
    the fastest of at least three runs; a slower one stays at one run a sample."""
    assert clmodes.RacePolicy().final_repeats(warm_up_s) == expected
    assert clmodes.RacePolicy(repeats_max=1).final_repeats(warm_up_s) == 1


def test_the_checks_run_is_the_first_warm_up(stream):
    """Checking a candidate costs no run the race would not make: the check's run (its
    first launch) is its warm-up, its device time the warm-up's timing. Fails when the
    race runs every checked candidate once more to warm it up."""
    policy = clmodes.RacePolicy(finalists=1, race_finalists=1, finalists_max=1,
                                warmup_timings=1, screen_ratio=None, drop_ratio=1e9,
                                sample_min_s=0.0)
    runs = {}
    for check in (False, True):
        counted = []
        base = kernel_variants(Kernel(fresh(SOURCE), "twice"), launch_twice,
                               defines={"ITEMS": [1, 4]})
        candidates = {name: (lambda run: lambda s, *a: (counted.append(1), run(s, *a))[1])(run)
                      for name, run in base.items()}
        tunable = Tunable(unique(), key=lambda out, x, n: n, candidates=candidates,
                          policy=policy, check=check)
        out, x = buffers(stream)
        tunable(stream, out, x, 4096)
        record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, 4096)))
        assert sorted(record["measurements"]) == sorted(base), record
        assert all(len(m["samples_s"]) == policy.total_samples
                   for m in record["measurements"].values()), record
        runs[check] = len(counted)
    assert runs[True] == runs[False], runs


def _a_burst_and_a_candidate(stream):
    """A far slower kernel (standing in for another process's burst), a fast candidate
    computing the same answer, and their arguments."""
    candidates = slow_and_fast_candidates()
    slow = candidates.pop("slow")
    fast = next(iter(candidates.values()))
    out, x = buffers(stream)
    return slow, fast, (out, x, x.size)


def test_a_finals_sample_of_several_runs_is_their_fastest(stream):
    """Load only ever adds time: of a final's three runs, two slowed by a burst (a far
    slower kernel stands in for it), the sample is the fast one (`RunsAs.FASTEST`, the
    final's rule), where the race's median takes a slow one. Fails when a final's
    sample is their median again."""
    from clmodes.measure import executing
    from clmodes.tune.measuring.racing import sample

    slow, fast, args = _a_burst_and_a_candidate(stream)
    calls = []

    def bursts_then_fast(stream, *args):
        calls.append(len(calls))
        return (fast if len(calls) % 3 == 0 else slow)(stream, *args)

    with executing(stream):
        slow(stream, *args), fast(stream, *args)  # built and warm
        fast_alone = min(sample(fast, stream, args) for _ in range(3))
        slow_alone = min(sample(slow, stream, args) for _ in range(3))
        assert slow_alone > 4 * fast_alone, (slow_alone, fast_alone)
        policy = clmodes.RacePolicy()
        assert policy.final_runs_as is clmodes.RunsAs.FASTEST
        fastest = sample(bursts_then_fast, stream, args, 3, policy.final_runs_as)
        median = sample(bursts_then_fast, stream, args, 3, clmodes.RunsAs.MEDIAN)
    assert fastest < slow_alone / 4 and median > slow_alone / 2, (fastest, slow_alone, median)


def test_a_warm_up_slowed_once_keeps_its_runs_per_sample(stream):
    """The runs per sample follow the fastest of a few warm-up timings: a candidate whose
    first timed run was slow (here a far slower kernel stands in for another process's
    burst) still gets several runs per sample. Fails when one timing decides."""
    from clmodes.measure import executing
    from clmodes.tune.measuring.racing import warm_up_timing

    slow, fast, args = _a_burst_and_a_candidate(stream)
    calls = []

    def burst_then_fast(stream, *args):
        calls.append(len(calls))
        return (slow if len(calls) == 1 else fast)(stream, *args)

    with executing(stream):
        slow(stream, *args), fast(stream, *args)  # built and warm
        policy = clmodes.RacePolicy(retime_below_s=10.0)
        timing = warm_up_timing(burst_then_fast, stream, args, policy)
        assert policy.repeats(timing) > 1, timing
        calls.clear()
        once = dataclasses.replace(policy, warmup_timings=1)
        assert once.repeats(warm_up_timing(burst_then_fast, stream, args, once)) == 1
