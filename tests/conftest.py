"""Shared fixtures. Every test runs on a real OpenCL device.

Tests that take the `client` (or `stream`) fixture run once per device found (PoCL, Intel's
CPU runtime, Oclgrind, a GPU); `$CLMODES_TEST_DEVICES` (comma-separated substrings of
"platform / device") narrows the set. Oclgrind is a slow simulator: it runs only tests
marked `oclgrind`, which keep their sizes tiny, with its out-of-bounds and data-race
checks on; anything they report fails the test.
"""

from __future__ import annotations

import itertools
import os
import re
import tempfile
import threading
import uuid

# Never touch the user's real store: every test session (and its subprocesses) gets its own.
os.environ["CLMODES_CACHE_DIR"] = tempfile.mkdtemp(prefix="clmodes-tests-")
# Oclgrind reads these when it loads: data-race detection on (out-of-bounds is always on).
os.environ.setdefault("OCLGRIND_DATA_RACES", "1")

import pyopencl as cl  # noqa: E402
import pytest  # noqa: E402

import clmodes  # noqa: E402

_salt = itertools.count()
OCLGRIND_ERRORS = re.compile(r"Invalid (read|write) of size|data race at|Uninitialized value")


def fresh(source: str) -> str:
    """A source no earlier test has obtained: kernels are identified by their source text."""
    return f"/* test {uuid.uuid4().hex} {next(_salt)} */\n{source}"


def is_oclgrind(device: clmodes.Device) -> bool:
    return "oclgrind" in device.platform_name.lower()


def test_devices() -> list[clmodes.Device]:
    wanted = [w.strip().lower() for w in os.environ.get("CLMODES_TEST_DEVICES", "").split(",")
              if w.strip()]
    found = clmodes.devices()
    if wanted:
        found = [d for d in found if any(_selects(w, d) for w in wanted)]
    return found


def _selects(wanted: str, device: clmodes.Device) -> bool:
    """A runtime's name ("pocl", "intel", "oclgrind", "nvidia") selects its devices only
    (PoCL's device is "pthread-Intel(R) Xeon"); anything else is a label substring."""
    vendors = {d.fingerprint.vendor.lower() for d in clmodes.devices()}
    if wanted in vendors:
        return device.fingerprint.vendor.lower() == wanted
    return wanted in device.label.lower()


test_devices.__test__ = False  # a helper, not a test


def _device_id(device: clmodes.Device) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", device.platform_name.split()[0]).strip("-").lower()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "oclgrind: small enough to run on the Oclgrind simulator")


@pytest.fixture(params=test_devices(), ids=_device_id)
def client(request: pytest.FixtureRequest, capfd: pytest.CaptureFixture[str]):
    device: clmodes.Device = request.param
    if is_oclgrind(device):
        if request.node.get_closest_marker("oclgrind") is None:
            pytest.skip("Oclgrind (a simulator) runs only the tests marked 'oclgrind'")
        yield clmodes.client(device)
        clmodes.client(device).stream().finish()
        reported = capfd.readouterr().err
        if OCLGRIND_ERRORS.search(reported):
            pytest.fail(f"Oclgrind reported errors:\n{reported[:4000]}")
        return
    yield clmodes.client(device)


@pytest.fixture
def stream(client: clmodes.Client) -> clmodes.Stream:
    return client.stream(f"test-{uuid.uuid4().hex[:8]}")


class BuildSpy:
    """Counts real `pyopencl.Program.build` calls (it still calls the real one)."""

    def __init__(self) -> None:
        self.sources: list[str] = []
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        return len(self.sources)


@pytest.fixture
def build_spy(monkeypatch: pytest.MonkeyPatch) -> BuildSpy:
    spy = BuildSpy()
    real_build = cl.Program.build

    def counting_build(program, *args, **kwargs):
        source = program.get_info(cl.program_info.SOURCE)
        with spy._lock:
            spy.sources.append(source)
        return real_build(program, *args, **kwargs)

    monkeypatch.setattr(cl.Program, "build", counting_build)
    return spy


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
