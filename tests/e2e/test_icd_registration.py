"""Intel's CPU runtime from PyPI registers itself; a library registered twice is one platform;
a program under `clmodes run` sees every platform `clmodes devices` lists, and the
`PYOPENCL_CTX` that command gives for a device picks that device in the program.

Each case is a fresh process with the ICD loader's environment set as a user would have
it, since the loader reads `OCL_ICD_VENDORS` once, at the process's first OpenCL call
(the test process's own environment may set it: each case says what the child gets)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clmodes.icd import SYSTEM_VENDORS, intel_library
from support.subprocesses import environment

LIST = ("import json, clmodes; print(json.dumps([[d.platform_name, d.description.platform_version] "
        "for d in clmodes.devices()]))")
RAW = ("import json, pyopencl as cl; print(json.dumps([[p.name, p.version] "
       "for p in cl.get_platforms()]))")


# What a user's program does to pick a device; it prints the device it got.
CONTEXT_PROGRAM = ("import pyopencl as cl\n"
                   "device = cl.create_some_context(interactive=False).devices[0]\n"
                   "print(device.platform.name, '/', device.name, '|', device.driver_version)\n")


def _run(code: str, tmp_path: Path, **env: str | None) -> subprocess.CompletedProcess:
    return _process(["-c", code], tmp_path, **env)


def _process(args: list[str], tmp_path: Path, **env: str | None) -> subprocess.CompletedProcess:
    """`python ARGS...`; `env`: variables set, or removed where None."""
    merged = environment(tmp_path / "store")
    for name, value in env.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return subprocess.run([sys.executable, *args], env=merged, capture_output=True,
                          text=True, timeout=300)


def _clmodes_run_context(tmp_path: Path, pyopencl_ctx: str) -> subprocess.CompletedProcess:
    """`clmodes run` of `CONTEXT_PROGRAM` with `PYOPENCL_CTX`, `OCL_ICD_VENDORS` unset."""
    script = tmp_path / "ctx.py"
    script.write_text(CONTEXT_PROGRAM)
    return _process(["-m", "clmodes", "run", str(script)], tmp_path, OCL_ICD_VENDORS=None,
                    CLMODES_REGISTER_RUNTIMES=None, PYOPENCL_CTX=pyopencl_ctx)


def _platforms(code: str, tmp_path: Path, **env: str | None) -> list[list[str]]:
    out = _run(code, tmp_path, **env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def intel() -> Path:
    library = intel_library()
    if library is None:
        pytest.skip("Intel's CPU runtime is not installed in this environment")
    return library


def test_intel_from_pypi_is_registered_with_no_step(tmp_path: Path, intel: Path):
    found = _platforms(LIST, tmp_path, OCL_ICD_VENDORS=None, CLMODES_REGISTER_RUNTIMES=None)
    assert "Intel(R) OpenCL" in [name for name, _ in found]
    raw = _platforms(RAW, tmp_path, OCL_ICD_VENDORS=None)
    assert "Intel(R) OpenCL" not in [name for name, _ in raw], "pyopencl alone should not see it"


def test_what_the_user_registered_is_kept(tmp_path: Path, intel: Path):
    """The system's registrations stay: every platform pyopencl alone sees is still listed."""
    raw = {name for name, _ in _platforms(RAW, tmp_path, OCL_ICD_VENDORS=None)}
    found = {name for name, _ in _platforms(LIST, tmp_path, OCL_ICD_VENDORS=None)}
    assert raw <= found and found - raw == {"Intel(R) OpenCL"}
    if not any(SYSTEM_VENDORS.glob("*.icd")):
        pytest.skip("nothing registered system-wide here to keep")


def test_a_folder_the_user_chose_is_left_alone_and_the_hint_says_what_to_add(tmp_path: Path, intel: Path):
    chosen = tmp_path / "vendors"
    chosen.mkdir()
    found = _platforms(LIST, tmp_path, OCL_ICD_VENDORS=str(chosen))
    assert "Intel(R) OpenCL" not in [name for name, _ in found]
    out = _run("from clmodes.cli import main; main(['devices'])", tmp_path, OCL_ICD_VENDORS=str(chosen))
    assert f"does not register it: add an .icd file there whose one line is {intel}" in out.stdout


def test_registering_can_be_turned_off(tmp_path: Path, intel: Path):
    found = _platforms(LIST, tmp_path, OCL_ICD_VENDORS=None, CLMODES_REGISTER_RUNTIMES="0")
    assert "Intel(R) OpenCL" not in [name for name, _ in found]


def test_a_library_registered_twice_is_one_platform(tmp_path: Path, intel: Path):
    vendors = tmp_path / "twice"
    vendors.mkdir()
    (vendors / "intel-a.icd").write_text(f"{intel}\n")
    (vendors / "intel-b.icd").write_text(f"{os.path.realpath(intel)}\n")
    raw = _platforms(RAW, tmp_path, OCL_ICD_VENDORS=str(vendors))
    if [name for name, _ in raw].count("Intel(R) OpenCL") < 2:
        pytest.skip("this ICD loader lists a library registered twice once already")
    found = _platforms(LIST, tmp_path, OCL_ICD_VENDORS=str(vendors))
    assert [name for name, _ in found].count("Intel(R) OpenCL") == 1


def test_a_program_under_clmodes_run_sees_intel_from_pypi(tmp_path: Path, intel: Path):
    """Issue 58: registering only when clmodes first listed devices came after the program's
    own first OpenCL call, and `PYOPENCL_CTX=Intel` matched no platform."""
    out = _clmodes_run_context(tmp_path, "Intel")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Intel(R) OpenCL / "), out.stdout


def test_the_pyopencl_ctx_clmodes_devices_gives_picks_that_device_under_clmodes_run(tmp_path: Path):
    """Every device `clmodes devices` lists, Intel's from PyPI included, is the one a program
    under `clmodes run` gets with the `PYOPENCL_CTX` shown beside it (clmodes' own index
    ranks devices, pyopencl's counts the loader's platforms: `discovery.pyopencl_ctx`)."""
    listed = _process(["-m", "clmodes", "devices", "--json"], tmp_path, OCL_ICD_VENDORS=None,
                      CLMODES_REGISTER_RUNTIMES=None)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    if intel_library() is not None:
        assert "Intel(R) OpenCL" in [row["label"].split(" / ")[0] for row in rows]
    for row in rows:
        out = _clmodes_run_context(tmp_path, row["pyopencl_ctx"])
        assert out.returncode == 0, out.stderr
        label, driver = out.stdout.strip().rsplit(" | ", 1)
        assert label == row["label"], (row["pyopencl_ctx"], out.stdout)
        assert f"| driver {driver} |" in row["exact"], (row["exact"], driver)
