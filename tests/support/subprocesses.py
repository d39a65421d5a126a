"""Running Python and the `clmodes` command in fresh processes, as users and CI do.

A fresh process is the only honest test of "a later process starts warm": nothing in
memory survives, only the store does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parents[1]  # tests/: `import support` works in every subprocess


def environment(cache_dir: Path | None = None, **extra: str) -> dict[str, str]:
    # A worker of pytest-xdist exports COLUMNS=80, and the CLI fits its tables to COLUMNS:
    # a child gets the width only where a test asks for one.
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(extra)
    if cache_dir is not None:
        env["CLMODES_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    return env


def run_python(code: str, cache_dir: Path | None = None, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=environment(cache_dir, **extra),
                          capture_output=True, text=True, timeout=600)


def spawn_python(code: str, cache_dir: Path, **extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], env=environment(cache_dir, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_cli(cache_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    """`clmodes ARGS...` on the store in `cache_dir`; `extra`: more environment variables."""
    return subprocess.run([sys.executable, "-m", "clmodes", *args],
                          env=environment(cache_dir, **extra),
                          capture_output=True, text=True, timeout=600)


def last_json(out: subprocess.CompletedProcess) -> dict:
    """The JSON object a successful process printed last."""
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# A fresh process running `support.tunables.workload()`, reporting its checks, statistics
# and how many programs it built from source (the build spy is `support.BuildSpy`).
RUN_WORKLOAD = """
import json, clmodes
from support import BuildSpy
from support import tunables
spy = BuildSpy().install()
c = clmodes.StatisticsCollector()
with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):
    checks = tunables.workload()
s = clmodes.StatisticsReader(c).statistics()
print(json.dumps({**checks, **s.as_dict(), "source_builds": sum(1 for x in spy.sources if x)}))
"""


# Root ignores file permissions, so a store made read-only by `chmod` is still written by
# root: a read-only *bind mount* in a private mount namespace binds everyone.
_READ_ONLY = 'mount --bind -o ro "$0" "$0" && exec "$@"'


def can_mount_read_only(scratch: Path) -> bool:
    """Can this machine bind-mount a folder read-only in a private mount namespace
    (`unshare --mount`: root, or a user namespace)?"""
    try:
        out = subprocess.run(["unshare", "--mount", "sh", "-c", _READ_ONLY, str(scratch), "true"],
                             capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0


def run_read_only(cache_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run `args` (a program and its arguments) with `cache_dir` mounted read-only."""
    return subprocess.run(["unshare", "--mount", "sh", "-c", _READ_ONLY, str(cache_dir), *args],
                          env=environment(cache_dir), capture_output=True, text=True, timeout=600)


# The two CPU runtimes the cross-process tests run on, as CLMODES_DEVICE selectors.
RUNTIMES = {"pocl": "Portable Computing Language", "intel": "Intel(R) OpenCL"}


def require_runtime(selector: str) -> str:
    """`selector`, or a skip when no device of this machine's matches it, or none that
    matches is usable (PyPI's PoCL on a CPU its LLVM does not know), with the reason. As a
    `CLMODES_DEVICE` selector it then picks the first usable match (`clmodes.selection`)."""
    import pytest

    import clmodes

    named = [d for d in clmodes.devices() if selector.lower() in d.label.lower()]
    if not named:
        pytest.skip(f"no {selector} device here")
    verdicts = [clmodes.usability(d) for d in named]
    if not any(v.usable for v in verdicts):
        pytest.skip(f"no usable {selector} device here ({'; '.join(v.describe() for v in verdicts)})")
    return selector


def pyopencl_ctx(runtime: str) -> str:
    """`PYOPENCL_CTX` ("platform:device") of the first usable device of `runtime` (a key of
    `RUNTIMES`): how a program that calls `cl.create_some_context()` is pointed at it."""
    import pyopencl as cl

    import clmodes

    selector = require_runtime(RUNTIMES[runtime])
    device = next(d for d in clmodes.devices()
                  if selector.lower() in d.label.lower() and clmodes.usability(d).usable)
    for p, platform in enumerate(cl.get_platforms()):
        for i, found in enumerate(platform.get_devices()):
            if found == device.cl_device:
                return f"{p}:{i}"
    raise AssertionError(f"{device.label} is not in pyopencl's list")


def run_reporting(module: str, cache_dir: Path, runtime: str, name: str, **options) -> dict:
    """`support.<module>.run(name, **options)` in a fresh process on `runtime`: the JSON
    report it prints, with the process's standard error as "stderr"."""
    out = run_python(f"from support import {module}; print({module}.run({name!r}, **{options!r}))",
                     cache_dir, CLMODES_DEVICE=runtime)
    report = last_json(out)
    report["stderr"] = out.stderr
    return report
