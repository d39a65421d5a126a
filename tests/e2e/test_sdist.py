"""The source distribution is enough to run the tests: build it, unpack it, run some.

Built in-process by setuptools' PEP 517 backend (the `test` extra pins a setuptools that
reads the SPDX license metadata): no network, no `build` package, no build isolation.
The unpacked tests import the unpacked clmodes (its folder first on the path), so a file
missing from the sdist fails here and not on a packager's machine."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

from support.subprocesses import TESTS, environment

ROOT = TESTS.parent
# Unit tests, one device test and one command test: each needs a different part of the
# tree (support helpers, fixtures, conftest, the package data) and together take seconds.
SUBSET = ["tests/unit/test_tune_report.py", "tests/unit/test_fingerprint.py",
          "tests/unit/test_cli_parser.py", "tests/device/test_devices.py",
          "tests/e2e/test_cli.py::test_devices_json"]


def _build_sdist(out: Path) -> Path:
    code = ("import sys; from setuptools import build_meta; "
            "print(build_meta.build_sdist(sys.argv[1]))")
    built = subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT, capture_output=True,
                           text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    return out / built.stdout.strip().splitlines()[-1]


def _shipped(path: Path) -> bool:
    return "__pycache__" not in path.parts and path.suffix != ".pyc" and path.is_file()


def test_pytest_passes_from_an_unpacked_sdist(tmp_path):
    archive = _build_sdist(tmp_path / "dist")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    (tree,) = (tmp_path / "unpacked").iterdir()

    for name in ("LICENSE", "README.md", "clmodes/py.typed", "pyproject.toml"):
        assert (tree / name).is_file(), f"{name} is not in the sdist"
    metadata = (tree / "PKG-INFO").read_text()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    missing = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*")
               if _shipped(p) and not (tree / p.relative_to(ROOT)).is_file()]
    assert not missing, f"tests files missing from the sdist: {missing[:10]}"

    env = environment(tmp_path / "store")
    env["PYTHONPATH"] = str(tree)  # the unpacked clmodes, not this checkout's
    env.pop("PYTEST_ADDOPTS", None)  # CI's report options are for the outer run
    where = subprocess.run([sys.executable, "-c", "import clmodes; print(clmodes.__file__)"],
                           cwd=tree, env=env, capture_output=True, text=True, timeout=120)
    assert Path(where.stdout.strip()).is_relative_to(tree), where.stdout + where.stderr
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                          *SUBSET],
                         cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    assert " passed" in ran.stdout and "error" not in ran.stdout.splitlines()[-1]
