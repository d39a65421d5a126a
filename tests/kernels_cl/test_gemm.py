"""kernels_cl.gemm: the parameterized GEMM against numpy on a covering sample of its space
(every value of every parameter appears), on awkward shapes, views and three dtypes; and
its space's structure (no device).

The sample's kernels are queued under COMPILE_ONLY first, so each device builds them in
one batch; Oclgrind is skipped (too slow for GEMM tiles: the conftest skips unmarked
tests there).
"""

from __future__ import annotations

import importlib
import math
import random

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import ProcessMode, ProcessModeOverride, StreamMode, StreamModeOverride
from kernels_cl import _common, gemm
from support.fp64 import fp64_broken

SPACE = gemm.GEMM_SPACE
SHAPES = [(33, 17, 45), (70, 40, 129), (1, 1, 1), (16, 64, 32)]  # (M, K, N)


def covering_sample(seed: int) -> list[dict]:
    """Configs in which every value of every parameter occurs at least once (a seeded
    greedy cover of random valid configs), plus the largest work-group tiles."""
    rng = random.Random(seed)
    missing = {(p, v) for p in SPACE.params for v in SPACE.values(p)}
    chosen: list[dict] = []
    pool = SPACE.sample(rng, 400)
    while missing:
        best = max(pool, key=lambda c: len(missing & set(c.items())))
        chosen.append(best)
        missing -= set(best.items())
    biggest = max(SPACE, key=lambda c: (c["MWG"] * c["NWG"], c["VWN"], c["SA"] + c["SB"]))
    return chosen + [biggest]


SAMPLE = covering_sample(15)


def rand(shape, dtype, seed):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


def tolerance(dtype, K):
    return {np.float32: dict(rtol=1e-4, atol=1e-5 * K),
            np.float64: dict(rtol=1e-10, atol=1e-12 * K),
            np.float16: dict(rtol=2e-3, atol=2e-3 * math.sqrt(K))}[np.dtype(dtype).type]


def run_all(stream, jobs):
    """Launch every (config, out, a, b) twice: queued, then for real (one batch)."""
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, clmodes.StatisticsCollector()):
        for config, out, a, b in jobs:
            gemm.launch_out(stream, config, out, a, b)
    for config, out, a, b in jobs:
        gemm.launch_out(stream, config, out, a, b)
    stream.finish()


def test_the_space_is_large_and_its_restrictions_hold():
    configs = list(SPACE)
    assert len(configs) >= 300 and len(configs) == len(SPACE)
    for c in configs:
        assert c["MWG"] % (c["MDIMC"] * c["VWM"]) == 0 and c["NWG"] % (c["NDIMC"] * c["VWN"]) == 0
        assert c["KWG"] % c["KWI"] == 0
        assert (c["MWG"] // c["MDIMC"]) * (c["NWG"] // c["NDIMC"]) <= 64
        assert c["KWG"] * (c["SA"] * c["MWG"] + c["SB"] * c["NWG"]) <= 4096
        global_size, local_size = gemm.geometry(c, 33, 45)
        assert all(g % loc == 0 for g, loc in zip(global_size, local_size))
    assert all(any(c[p] == v for c in SAMPLE) for p in SPACE.params for v in SPACE.values(p))


def test_a_covering_sample_of_configs_matches_numpy_on_awkward_shapes(stream, build_spy):
    inputs = {shape: (rand(shape[:2], np.float32, 1), rand(shape[1:], np.float32, 2))
              for shape in SHAPES}
    device = {s: (cla.to_device(stream.queue, a), cla.to_device(stream.queue, b))
              for s, (a, b) in inputs.items()}
    jobs, expected = [], []
    for config in SAMPLE:
        for (M, K, N), (A, B) in device.items():
            out = cla.zeros(stream.queue, (M, N), np.float32)
            jobs.append((config, out, A, B))
            a, b = inputs[(M, K, N)]
            expected.append((SPACE.name(config), (M, K, N), a.astype(np.float64) @ b))
    run_all(stream, jobs)
    assert build_spy.calls <= 1 + len(SAMPLE) // 16  # batched (the batcher's limit aside)
    for (config, out, _, _), (name, shape, ref) in zip(jobs, expected):
        np.testing.assert_allclose(out.get(), ref, **tolerance(np.float32, shape[1]),
                                   err_msg=f"{name} at M,K,N={shape}")


def test_the_start_configs_match_numpy_where_most_items_stop_early(stream):
    """`kernels_cl.matmul`'s start configs (CPU and GPU), on the MLP's narrow last layer
    (N = 10) and on shapes where most items of an unstaged config lie outside C (they
    return, or leave the row-tile loop, before the others finish)."""
    matmul_module = importlib.import_module("kernels_cl.matmul")
    starts = matmul_module.CPU_START + matmul_module.GPU_START
    assert len(starts) == 7 and all(config in SPACE for config in starts)
    shapes = [(64, 128, 10), (5, 7, 3), (70, 33, 1), (1, 16, 65)]
    jobs, expected = [], []
    for M, K, N in shapes:
        a, b = rand((M, K), np.float32, 3), rand((K, N), np.float32, 4)
        A, B = cla.to_device(stream.queue, a), cla.to_device(stream.queue, b)
        for config in starts:
            jobs.append((config, cla.zeros(stream.queue, (M, N), np.float32), A, B))
            expected.append((SPACE.name(config), (M, K, N), a.astype(np.float64) @ b))
    run_all(stream, jobs)
    for (config, out, _, _), (name, shape, ref) in zip(jobs, expected):
        np.testing.assert_allclose(out.get(), ref, **tolerance(np.float32, shape[1]),
                                   err_msg=f"{name} at M,K,N={shape}")


def test_clamped_edges_match_zero_padded_ones_and_keep_non_finite_values_in_place(stream):
    """EDGE=1 (edge tiles load clamped rows and columns) against EDGE=0 (zero padding)
    and numpy, for each staging (A and B staged, one of them, neither) on shapes with
    partial tiles along M, N and K. A's last row and B's last column hold an inf: a
    clamped load repeats them into rows and columns past C, which must never be stored,
    so the result has inf and nan exactly where numpy's has."""
    rng = random.Random(7)
    twins = []
    for sa, sb in ((1, 1), (1, 0), (0, 1), (0, 0)):
        config = next(c for c in SPACE.sample(rng, 200)
                      if c["SA"] == sa and c["SB"] == sb and c["EDGE"] == 1)
        twins += [config, {**config, "EDGE": 0}]
    jobs, expected = [], []
    for M, K, N in ((33, 17, 45), (70, 40, 129), (5, 7, 3)):
        a, b = rand((M, K), np.float32, 5), rand((K, N), np.float32, 6)
        a[M - 1, 0], b[0, N - 1] = np.inf, -np.inf
        A, B = cla.to_device(stream.queue, a), cla.to_device(stream.queue, b)
        with np.errstate(invalid="ignore"):
            ref = a.astype(np.float64) @ b
        for config in twins:
            jobs.append((config, cla.zeros(stream.queue, (M, N), np.float32), A, B))
            expected.append((SPACE.name(config), (M, K, N), ref))
    run_all(stream, jobs)
    for (config, out, _, _), (name, shape, ref) in zip(jobs, expected):
        got = out.get()
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(ref),
                                      err_msg=f"{name} at M,K,N={shape}")
        np.testing.assert_allclose(got, ref, **tolerance(np.float32, shape[1]),
                                   err_msg=f"{name} at M,K,N={shape}")


def test_start_configs_follow_the_device_kind(stream):
    matmul_module = importlib.import_module("kernels_cl.matmul")
    chosen = matmul_module.start_configs(stream.device)
    kind = stream.device.description.device_type
    expected = {"CPU": matmul_module.CPU_START, "GPU": matmul_module.GPU_START}.get(
        kind, matmul_module.CPU_START + matmul_module.GPU_START)
    assert chosen == expected


def test_views_float64_float16_and_the_grid_stride_loop(stream, monkeypatch):
    """Arrays at an offset, the two other dtypes (one staged config with zero-padded
    edges, one direct config with clamped ones), and at most two work-groups along M so
    that the row-tile loop runs."""
    monkeypatch.setattr(_common, "MAX_GROUPS", 2)
    staged = "MWG=32,NWG=64,KWG=16,MDIMC=8,NDIMC=8,VWM=4,VWN=4,KWI=4,STRM=1,STRN=0,SA=1,SB=1"
    direct = "MWG=32,NWG=32,KWG=16,MDIMC=4,NDIMC=4,VWM=1,VWN=8,KWI=1,STRM=0,STRN=1,SA=0,SB=0"
    configs = [SPACE.config(f"{staged},EDGE=0"), SPACE.config(f"{direct},EDGE=1")]
    M, K, N = 75, 37, 51
    extensions = stream.device.cl_device.extensions.split()
    dtypes = [np.float32] + [d for d, ext in ((np.float64, "cl_khr_fp64"),
                                               (np.float16, "cl_khr_fp16")) if ext in extensions
                             and not (d == np.float64 and fp64_broken(stream.device))]
    jobs, expected = [], []
    for dtype in dtypes:
        a, b = rand((M + 3, K), dtype, 3), rand((K, N), dtype, 4)
        A = cla.to_device(stream.queue, a)[3:]  # a view at an offset
        B = cla.to_device(stream.queue, b)
        for config in configs:
            whole = cla.zeros(stream.queue, (M + 2, N), dtype)
            jobs.append((config, whole[1:M + 1], A, B))
            expected.append((dtype, config, whole, a[3:].astype(np.float64) @ b))
    run_all(stream, jobs)
    for dtype, config, whole, ref in expected:
        got = whole.get()
        np.testing.assert_allclose(got[1:M + 1], ref, **tolerance(dtype, K),
                                   err_msg=f"{np.dtype(dtype).name} {SPACE.name(config)}")
        assert not got[0].any() and not got[M + 1].any()  # nothing written outside the view


def test_a_larger_random_sample_builds_in_one_batch(stream, build_spy):
    """Beyond the covering sample: 16 more seeded configs, built only (queued on the
    stream, then `build_queued`: one batch), each then obtained without running (a
    failed build would raise here, naming the kernel)."""
    configs = SPACE.sample(random.Random(2026), 16, exclude={SPACE.name(c) for c in SAMPLE})
    arrays = [cla.zeros(stream.queue, (8, 8), np.float32) for _ in range(3)]
    with stream.gathering():
        for config in configs:
            gemm.launch_out(stream, config, *arrays)
    stream.build_queued()
    assert 1 <= build_spy.calls <= 2
    with StreamModeOverride(stream, StreamMode.DISCARD):
        for config in configs:
            assert gemm.launch_out(stream, config, *arrays) is None
    assert build_spy.calls <= 2  # everything was obtained from that batch


def test_matmul_picks_its_tunable_from_the_environment(monkeypatch):
    import importlib

    import pytest

    matmul_module = importlib.import_module("kernels_cl.matmul")
    monkeypatch.delenv("KERNELS_CL_MATMUL", raising=False)
    chosen = matmul_module.tunable("float32")
    assert chosen is matmul_module.SPACE_TUNABLES["float32"] and chosen.space is not None
    monkeypatch.setenv("KERNELS_CL_MATMUL", "candidates")
    assert matmul_module.tunable("float32") is matmul_module.TUNABLES["float32"]
    monkeypatch.setenv("KERNELS_CL_MATMUL", "fast")
    with pytest.raises(ValueError, match="KERNELS_CL_MATMUL"):
        matmul_module.tunable("float32")
