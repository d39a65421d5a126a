"""Shared fixtures. Every test runs on a real OpenCL device.

Tests that take the `client` (or `stream`) fixture run once per device found (PoCL, Intel's
CPU runtime, Oclgrind, a GPU); `$CLMODES_TEST_DEVICES` (comma-separated substrings of
"platform / device") narrows the set. Oclgrind is a slow simulator: it runs only tests
marked `oclgrind`, which keep their sizes tiny, with its out-of-bounds and data-race
checks on; anything they report fails the test.
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


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Which devices the tests run on, and which were passed over and why."""
    lines = [f"clmodes test devices: {', '.join(d.label for d in test_devices()) or 'none'}"]
    lines += [f"clmodes passed over {d.label}: {why}" for d, why in unusable_devices()]
    return lines


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Oclgrind (a slow simulator) runs only the tests marked `oclgrind`: the others are
    deselected here rather than skipped, so the skip count says what matters (a missing
    fp64, a runtime that is not usable)."""
    kept, dropped = [], []
    for item in items:
        device = _device_of(item)
        unmarked = item.get_closest_marker("oclgrind") is None
        (dropped if device is not None and is_oclgrind(device) and unmarked else kept).append(item)
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
