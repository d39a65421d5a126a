"""The fixtures of the remote tier's end-to-end tests (test_remote.py, test_remote_bounds.py):
a real redis-server in a private network and PID namespace, and a team signing key.
Imported by name into each test module, as pytest finds fixtures there."""

from __future__ import annotations

from pathlib import Path

import pytest

from clmodes.bundle import keygen
from support.remote_namespace import RemoteNamespace
from support.subprocesses import environment


@pytest.fixture
def namespace(tmp_path: Path):
    why = RemoteNamespace.unusable()
    if why:
        pytest.skip(why)
    made = RemoteNamespace(tmp_path)
    made.start(environment())
    yield made
    made.close()


@pytest.fixture
def key(tmp_path: Path) -> Path:
    keygen(tmp_path / "team.key")
    return tmp_path / "team.key"
