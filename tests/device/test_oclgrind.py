"""Oclgrind's checks are failures: shown on a deliberately broken kernel."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import clmodes
from support import is_oclgrind

HERE = Path(__file__).parents[1]  # tests/


@pytest.mark.skipif(not any(is_oclgrind(d) for d in clmodes.devices()),
                    reason="Oclgrind is not installed (pip install '.[oclgrind]')")
def test_broken_kernel_fails_under_oclgrind():
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}  # CI's reports
    env["CLMODES_TEST_DEVICES"] = "oclgrind"
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
         str(HERE / "harness" / "broken_kernel_check.py")],
        cwd=HERE.parent, env=env, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Oclgrind reported errors" in out.stdout
    assert "Invalid write of size 4" in out.stdout
