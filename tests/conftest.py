"""Shared fixtures. Every test runs on a real OpenCL device (PoCL in CI)."""

from __future__ import annotations

import itertools
import os
import tempfile
import threading
import uuid

# Never touch the user's real store: every test session (and its subprocesses) gets its own.
os.environ["CLMODES_CACHE_DIR"] = tempfile.mkdtemp(prefix="clmodes-tests-")

import pyopencl as cl
import pytest

import clmodes

_salt = itertools.count()


def fresh(source: str) -> str:
    """A source no earlier test has obtained: kernels are identified by their source text."""
    return f"/* test {uuid.uuid4().hex} {next(_salt)} */\n{source}"


@pytest.fixture
def client() -> clmodes.Client:
    return clmodes.client()


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
