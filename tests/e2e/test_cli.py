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
    # the devices found are listed, and a machine that has some is not told to install one
    assert "found 0: " in out.stderr and "install an OpenCL runtime" not in out.stderr


BROKEN_WORKLOAD = '''
import clmodes
SOURCE = """
__kernel void k(__global float* a)
{
    a[0] = no_such_name;
}
"""

def workload():
    clmodes.client().stream().launch(clmodes.Kernel(SOURCE, "k"), 1, None, None)
'''


def test_warm_of_a_broken_kernel_prints_the_compilers_message(tmp_path):
    (tmp_path / "broken_workload.py").write_text(BROKEN_WORKLOAD)
    out = subprocess.run(
        [sys.executable, "-m", "clmodes", "warm", "broken_workload:workload"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**__import__("os").environ, "PYTHONPATH": str(tmp_path),
             "CLMODES_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()  # the driver may print its own lines first
    head = next(i for i, line in enumerate(lines) if line.startswith("clmodes: "))
    assert lines[head].startswith("clmodes: kernel 'k' failed to build on ")
    assert "no_such_name" in "\n".join(lines[head + 1:])  # the compiler's words follow
    assert "Traceback" not in out.stderr


TINY_WORKLOAD = '''
import clmodes
def workload():
    source = "__kernel void k(__global float* a) { a[get_global_id(0)] = 1.0f; }"
    clmodes.client().stream().launch(clmodes.Kernel(source, "k"), 1, None, None)
'''


def test_warm_that_can_keep_nothing_fails_unless_allowed(tmp_path):
    """A cache dir below a regular file (permissions do not bind root) cannot be used: the
    store falls back to memory, and a build machine must not report success."""
    (tmp_path / "tiny_workload.py").write_text(TINY_WORKLOAD)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path),
           "CLMODES_CACHE_DIR": str(blocker / "cache")}

    def warm(*extra):
        return subprocess.run([sys.executable, "-m", "clmodes", "warm", "tiny_workload:workload",
                               *extra], capture_output=True, text=True, timeout=300,
                              cwd=tmp_path, env=env)

    refused = warm()
    assert refused.returncode == 2
    assert any(line.startswith("clmodes: ") and "--allow-memory" in line and "in memory" in line
               for line in refused.stderr.splitlines()), refused.stderr
    allowed = warm("--allow-memory", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout)["store"] == ":memory:"
