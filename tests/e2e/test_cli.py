import json
import subprocess
import sys


def clmodes_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "clmodes", *args], capture_output=True, text=True, timeout=300
    )


def test_devices_json():
    out = clmodes_cli("devices", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert rows and {"index", "label", "model", "exact"} <= set(rows[0])


def test_demo_batches_into_one_build():
    out = clmodes_cli("demo", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["after_compile_only"]["compilation"]["builds"] == 0
    assert report["after_compile_and_autotune"]["compilation"] == {
        "kernels": 12, "compiled": 12, "loaded": 0, "builds": 1,
    }
    assert report["result_ok"] is True


def test_unknown_device_is_one_line_error():
    out = clmodes_cli("demo", "--device", "no-such-device")
    assert out.returncode == 2
    assert out.stderr.startswith("clmodes: no OpenCL device matches")
    assert "Traceback" not in out.stderr
