"""The `clmodes` command's warm and cache verbs, run as subprocesses."""

import json

import pytest

from support.subprocesses import run_cli


def test_warm_info_clear(tmp_path):
    warm = run_cli(tmp_path, "warm", "support.tunables:workload", "--json")
    assert warm.returncode == 0, warm.stderr
    report = json.loads(warm.stdout)
    assert report["compilation"]["builds"] == 1 and report["autotune"]["keys"] == 1
    assert report["store"] == str(tmp_path / "store.sqlite3")
    assert warm.stderr == ""  # not a terminal: no progress drawn

    again = json.loads(run_cli(tmp_path, "warm", "support.tunables:workload", "--json").stdout)
    assert again["compilation"]["compiled"] == 0 and again["compilation"]["loaded"] == 13
    assert again["autotune"]["keys"] == 0

    info = json.loads(run_cli(tmp_path, "cache", "info", "--json").stdout)
    assert info["location"] == str(tmp_path / "store.sqlite3") and info["bytes"] > 0
    (model, entry), = info["devices"].items()
    assert entry["tune_results"] == 1
    (driver,) = entry["drivers"].values()
    # 12 demo kernels and the tune's winner: the 2 losing candidates are not persisted.
    assert driver["binaries"] == 1 and driver["kernels"] == 13 and driver["binary_bytes"] > 0

    text = run_cli(tmp_path, "cache", "info")
    assert "program binaries: 1" in text.stdout

    cleared = json.loads(run_cli(tmp_path, "cache", "clear", "--device", "0", "--json").stdout)
    assert cleared["deleted"] == 2 and cleared["device"] == model
    assert json.loads(run_cli(tmp_path, "cache", "info", "--json").stdout)["devices"] == {}


def test_warm_human_summary(tmp_path):
    out = run_cli(tmp_path, "warm", "support.tunables:workload")
    assert out.returncode == 0, out.stderr
    assert "kernels: 15 compiled, 0 loaded, in 1 build(s)" in out.stdout
    assert "autotune: 1 keys tuned" in out.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("warm", "no_such_module:run"), "cannot import module 'no_such_module'"),
        (("warm", "support.tunables:no_such_function"), "has no function 'no_such_function'"),
        (("warm", "support.tunables"), "expected MODULE:FUNCTION"),
        (("warm", "support.tunables:workload", "--device", "no-such-gpu"), "no OpenCL device matches"),
        (("cache", "clear", "--device", "42"), "no OpenCL device with index 42"),
    ],
)
def test_user_errors_are_one_line(tmp_path, args, message):
    out = run_cli(tmp_path, *args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_workload_exception_is_one_line_and_status_3(tmp_path):
    """The workload's own exception in a discarding pass: what it gathered is kept, the
    error named in one line, status 3 (`clmodes.cli.warm`: neither success nor a usage
    error)."""
    out = run_cli(tmp_path, "warm", "support.tunables:failing_workload")
    assert out.returncode == 3, out.stderr
    assert "Traceback" not in out.stderr
    [line] = [line for line in out.stderr.splitlines() if line.startswith("clmodes: ")]
    assert line.startswith("clmodes: warm: the workload raised ValueError "
                           "('the workload failed on purpose') at "), line
