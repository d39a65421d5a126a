"""A device whose compiler cannot build is found out once, named, and passed over.

A real runtime is driven into failing its trivial build: PoCL's `POCL_EXTRA_BUILD_FLAGS`
adds a flag its compiler refuses ("Invalid build option"), which is how PyPI's PoCL 3.0
fails on a CPU its LLVM does not know ("unknown target CPU 'generic'") — every build, on
every kernel. Each case is a fresh process, so no verdict is carried in memory."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import clmodes
from support.subprocesses import run_cli, run_python

BROKEN = {"POCL_EXTRA_BUILD_FLAGS": "-mcpu=clmodes-no-such-cpu"}


def _pocls() -> list[clmodes.Device]:
    found = [d for d in clmodes.devices() if d.fingerprint.vendor == "PoCL"]
    if not found:
        pytest.skip("no PoCL device here to break")
    return found


def _others_usable() -> list[clmodes.Device]:
    return [d for d in clmodes.devices()
            if d.fingerprint.vendor not in ("PoCL", "Oclgrind") and clmodes.usability(d).usable]


def test_devices_marks_a_broken_pocl_unusable_with_its_reason(tmp_path: Path):
    pocls = _pocls()
    out = run_cli(tmp_path, "devices", "--json", **BROKEN)
    assert out.returncode == 0, out.stderr
    rows = {row["index"]: row for row in json.loads(out.stdout)}
    for device in pocls:
        row = rows[device.index]
        assert row["usable"] is False
        assert "clmodes-no-such-cpu" in row["reason"]
        assert row["remedy"]
    text = run_cli(tmp_path, "devices", **BROKEN).stdout
    assert text.count("(UNUSABLE)") == len(pocls) and "unusable: " in text


def test_the_verdict_is_kept_per_exact_device_and_environment(tmp_path: Path):
    """Checked once: a second process reads the store; the same device under another
    compiler environment (the flag gone) is checked again, and usable."""
    if not any(clmodes.usability(d).usable for d in _pocls()):
        pytest.skip("no PoCL here builds even without the flag")
    run_cli(tmp_path, "devices", **BROKEN)
    with sqlite3.connect(tmp_path / "store.sqlite3") as db:
        verdicts = [json.loads(v) for (v,) in db.execute("SELECT value FROM device_check")]
    assert any(v["usable"] is False for v in verdicts)
    assert len(verdicts) == len(clmodes.devices())
    fixed = json.loads(run_cli(tmp_path, "devices", "--json").stdout)
    usable_here = {d.index for d in _pocls() if clmodes.usability(d).usable}
    assert usable_here and all(row["usable"] for row in fixed if row["index"] in usable_here)


def test_default_selection_passes_over_an_unusable_device(tmp_path: Path):
    _pocls()
    if not _others_usable():
        pytest.skip("no usable device besides PoCL here (Intel's CPU runtime, a GPU)")
    code = "import clmodes; print(clmodes.client().device.fingerprint.vendor)"
    out = run_python(code, cache_dir=tmp_path, CLMODES_DEVICE="", **BROKEN)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() not in ("PoCL", "")


def test_naming_an_unusable_device_is_one_line_with_cause_and_remedy(tmp_path: Path):
    _pocls()
    out = run_cli(tmp_path, "warm", "kernels_cl.workloads:mlp", "--device", "portable", **BROKEN)
    assert out.returncode == 2
    lines = [line for line in out.stderr.splitlines() if line.startswith("clmodes:")]
    assert len(lines) == 1, out.stderr
    assert "clmodes-no-such-cpu" in lines[0] and "use another" in lines[0]
    assert "Traceback" not in out.stderr


def test_a_build_error_line_is_never_cut_before_its_reason():
    error = clmodes.KernelBuildError("k", "dev", "Compilation started\n1:2: error: unknown type 'flaot'\n")
    assert str(error).splitlines()[0] == "kernel 'k' failed to build on dev: 1:2: error: unknown type 'flaot'"
