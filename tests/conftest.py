"""Shared fixtures. Every test runs on a real OpenCL device.

Tests that take the `client` (or `stream`) fixture run once per device found (PoCL, Intel's
CPU runtime, Oclgrind, a GPU); `$CLMODES_TEST_DEVICES` (comma-separated substrings of
"platform / device") narrows the set. Oclgrind is a slow simulator: it runs only tests
marked `oclgrind`, which keep their sizes tiny, with its out-of-bounds and data-race
checks on; anything they report fails the test.

The device matrix where it matters: the contract, device, batching, corpus, store-binary
and cross-process tests run on every usable device; the device tests of paths that do not
depend on the runtime (`ONE_DEVICE` below: the tune loop's logic beyond the contract's
tunes, statistics, the probe's scoring, kernels_cl's workloads) run on the first usable
test device only. `CLMODES_TEST_MATRIX=full` runs every device test on every device. The
session's header lists what runs on which runtime.

The benchmarks' per-script smoke (`bench_smoke`, one child process per script) runs only
when asked (`-m bench_smoke`); the suite runs one smoke of `ci/bench/run` itself.
"""

from __future__ import annotations

import os
import tempfile
import uuid

# Never touch the user's real store: every test session (and its subprocesses) gets its own.
os.environ["CLMODES_CACHE_DIR"] = tempfile.mkdtemp(prefix="clmodes-tests-")
# Nor the keys the user trusts (`trusted-keys/` in the config dir): tests trust what they say.
os.environ["CLMODES_CONFIG_DIR"] = tempfile.mkdtemp(prefix="clmodes-tests-config-")
os.environ.pop("CLMODES_TRUSTED_KEYS", None)
# Oclgrind reads these when it loads: data-race detection on (out-of-bounds is always on).
os.environ.setdefault("OCLGRIND_DATA_RACES", "1")

import pytest  # noqa: E402

import clmodes  # noqa: E402
from support import OCLGRIND_ERRORS, BuildSpy, device_id, is_oclgrind, test_devices  # noqa: E402
from support.devices import unusable_devices  # noqa: E402
from support.subprocesses import RUNTIMES, require_runtime  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "oclgrind: small enough to run on the Oclgrind simulator")


# Device tests of paths that do not depend on the runtime: on the first usable test device
# only (a file, or one test of it). Every other device test runs on every usable device.
ONE_DEVICE: dict[str, str] = {
    "tests/device/test_autotune_checking.py": "candidates checked against a reference",
    "tests/device/test_autotune_graded.py": "nearest-device answers",
    "tests/device/test_autotune_inputs.py": "what a tune measures on",
    "tests/device/test_autotune_verify.py": "verify once on the target",
    "tests/device/test_probe.py": "the probe's rounds and roofline scoring",
    "tests/device/test_statistics_counting.py": "statistics counting",
    "tests/kernels_cl/test_kernels_cl_workloads.py": "kernels_cl's workloads and warms",
    "tests/kernels_cl/test_gemm.py::test_a_larger_random_sample_builds_in_one_batch":
        "GEMM's larger sample (its covering sample builds everywhere)",
    "tests/kernels_cl/test_gemm.py::test_start_configs_follow_the_device_kind": "start configs",
    # The tune loop's decisions on real timings (screening, drops, runs per sample, a
    # final's sample, warm-up re-timing): on one device; on recorded timings, replayed,
    # in test_tune_replay.py. The contract's tunes stay on every device.
    "tests/device/test_autotune.py::test_clearly_slower_candidate_is_screened_at_warm_up":
        "screening on real timings",
    "tests/device/test_autotune.py::"
    "test_without_screening_a_slower_candidate_is_dropped_after_first_samples":
        "drops on real timings",
    "tests/device/test_autotune.py::test_a_short_kernel_is_run_several_times_per_sample":
        "runs per sample on real timings",
    "tests/device/test_autotune.py::test_a_finals_sample_of_several_runs_is_their_fastest":
        "a final's sample on real timings",
    "tests/device/test_autotune.py::test_a_warm_up_slowed_once_keeps_its_runs_per_sample":
        "warm-up re-timing on real timings",
    "tests/device/test_tune_replay.py": "the tune loop on recorded timings (no device time)",
}
# Tests of the code one compiler generates for kernels_cl's GEMM (the covering sample, the
# clamped edges, the start configs): on the first usable device of each
# OpenCL implementation (platform), Intel's and PoCL's, not on a second PoCL built with
# another LLVM. PoCL generates each kernel's code at its first launch per work-group size,
# and Debian's PoCL 3.1 took 2.7 minutes of a 17-minute suite on these three alone.
ONE_PER_PLATFORM: dict[str, str] = {
    "tests/kernels_cl/test_gemm.py::test_a_covering_sample_of_configs_matches_numpy_on_awkward_shapes":
        "GEMM's covering sample",
    "tests/kernels_cl/test_gemm.py::test_the_start_configs_match_numpy_where_most_items_stop_early":
        "GEMM's start configs",
    "tests/kernels_cl/test_gemm.py::"
    "test_clamped_edges_match_zero_padded_ones_and_keep_non_finite_values_in_place":
        "GEMM's clamped edges",
}
# What runs on every usable device (the header says so per runtime).
EVERY_DEVICE = ("contract (launch, modes, autotune, store), devices and fingerprints, batching, "
                "corpus and real libraries, kernels_cl's kernels, store binaries and bundles, "
                "compiler probes, cross-process")


def full_matrix() -> bool:
    return os.environ.get("CLMODES_TEST_MATRIX", "").strip().lower() == "full"


def primary_device() -> "clmodes.Device | None":
    """The one device of the `ONE_DEVICE` tests: the first usable test device."""
    found = test_devices()
    return found[0] if found else None


def platform_firsts() -> "list[clmodes.Device]":
    """The devices of the `ONE_PER_PLATFORM` tests: each platform's first test device."""
    firsts: dict[str, clmodes.Device] = {}
    for device in test_devices():
        firsts.setdefault(device.cl_device.platform.name, device)
    return list(firsts.values())


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Which devices the tests run on, what each runs, and which were passed over and why."""
    lines = [f"clmodes test devices: {', '.join(d.label for d in test_devices()) or 'none'}"]
    primary = primary_device()
    for device in test_devices():
        if is_oclgrind(device):
            runs = "the tests marked `oclgrind` (tiny sizes, its checks on)"
        elif full_matrix() or device == primary:
            runs = EVERY_DEVICE + ", and the runtime-independent device tests (ONE_DEVICE)"
        else:
            runs = EVERY_DEVICE
        if not full_matrix() and not is_oclgrind(device) and device not in platform_firsts():
            runs += (", except " + ", ".join(ONE_PER_PLATFORM.values())
                     + " (on its platform's first device)")
        lines.append(f"clmodes real-device tests on {device.label} [{device_id(device)}]: {runs}")
    lines += [f"clmodes passed over {d.label}: {why}" for d, why in unusable_devices()]
    if not _asked_for_bench_smoke(config):
        lines.append("clmodes benchmarks: one smoke of ci/bench/run; each script's smoke "
                     "with -m bench_smoke")
    return lines


def _asked_for_bench_smoke(config: pytest.Config) -> bool:
    return "bench_smoke" in (config.getoption("markexpr", "") or "")


def _one_device(item: pytest.Item) -> bool:
    path = item.nodeid.split("::", 1)[0]
    base = item.nodeid.split("[", 1)[0]
    return not full_matrix() and (path in ONE_DEVICE or base in ONE_DEVICE)


def _one_per_platform(item: pytest.Item) -> bool:
    return not full_matrix() and item.nodeid.split("[", 1)[0] in ONE_PER_PLATFORM


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselected here rather than skipped, so the skip count says what matters (a missing
    fp64, a runtime that is not usable):
    - on Oclgrind (a slow simulator), every test not marked `oclgrind`;
    - on any device but the first, the `ONE_DEVICE` tests, and on any but its platform's
      first, the `ONE_PER_PLATFORM` ones (unless `CLMODES_TEST_MATRIX=full`);
    - each benchmark script's smoke (`bench_smoke`), unless `-m` names it."""
    kept, dropped = [], []
    primary, firsts = primary_device(), platform_firsts()
    bench_smoke = _asked_for_bench_smoke(config)
    for item in items:
        device = _device_of(item)
        unmarked = item.get_closest_marker("oclgrind") is None
        drop = device is not None and ((is_oclgrind(device) and unmarked)
                                       or (device != primary and _one_device(item))
                                       or (device not in firsts and _one_per_platform(item)))
        drop = drop or (not bench_smoke and item.get_closest_marker("bench_smoke") is not None)
        (dropped if drop else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _device_of(item: pytest.Item) -> "clmodes.Device | None":
    callspec = getattr(item, "callspec", None)
    device = callspec.params.get("client") if callspec is not None else None
    return device if isinstance(device, clmodes.Device) else None


@pytest.fixture(params=test_devices(), ids=device_id)
def client(request: pytest.FixtureRequest, capfd: pytest.CaptureFixture[str]):
    device: clmodes.Device = request.param
    if is_oclgrind(device):  # only tests marked `oclgrind` reach here (collection)
        yield clmodes.client(device)
        clmodes.client(device).stream().finish()
        reported = capfd.readouterr().err
        if OCLGRIND_ERRORS.search(reported):
            pytest.fail(f"Oclgrind reported errors:\n{reported[:4000]}")
        return
    yield clmodes.client(device)


@pytest.fixture(params=list(RUNTIMES.values()), ids=list(RUNTIMES))
def runtime(request: pytest.FixtureRequest) -> str:
    """A `CLMODES_DEVICE` selector of each CPU runtime the cross-process tests run on (a
    skip with the reason where none of it is usable)."""
    return require_runtime(request.param)


@pytest.fixture
def stream(client: clmodes.Client) -> clmodes.Stream:
    return client.stream(f"test-{uuid.uuid4().hex[:8]}")


@pytest.fixture
def own_store(tmp_path):
    """A store of the test's own: what it tunes is not answered from another device's
    decisions (graded nearest-device answers) that earlier tests left in the session's."""
    store = clmodes.set_cache_dir(tmp_path / "own-store")
    yield store
    clmodes.set_cache_dir(os.environ["CLMODES_CACHE_DIR"])


@pytest.fixture
def build_spy(monkeypatch: pytest.MonkeyPatch) -> BuildSpy:
    """Every real `pyopencl.Program.build` of the test (see `support.BuildSpy`)."""
    return BuildSpy().install(monkeypatch)


@pytest.fixture
def collector() -> clmodes.StatisticsCollector:
    return clmodes.StatisticsCollector()


@pytest.fixture(scope="module")
def kernels_cl_small_race_policy():
    """kernels_cl's tunables race with few samples in tests: correctness, not speed."""
    import kernels_cl

    kernels_cl.set_race_policy(clmodes.RacePolicy(warmup=1, first_samples=2, total_samples=3))
    yield
    kernels_cl.set_race_policy(None)


# Bundle fixtures shared by the unit, device and end-to-end bundle tests.
from support.bundles import signing_key, small_bundle, target  # noqa: E402, F401
