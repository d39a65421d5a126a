"""`clmodes fleet` where it cannot run: no Ray, no cluster, a bad argument, a cluster
with no OpenCL device anywhere. One line each, a non-zero status, nothing written."""

from __future__ import annotations

import json
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import pytest

from support.fleet_cluster import FleetCluster
from support.subprocesses import environment, run_python

# Ray made unimportable in that process only: what a machine without the extra sees.
WITHOUT_RAY = """
import sys
sys.modules["ray"] = None
import clmodes, clmodes.fleet
from clmodes.cli import main
sys.exit(main({argv!r}))
"""


def cli_without_ray(tmp_path, *argv: str):
    return run_python(WITHOUT_RAY.format(argv=list(argv)), tmp_path)


def fleet_cli(tmp_path, *argv: str, **env: str):
    import subprocess

    return subprocess.run([sys.executable, "-m", "clmodes", "fleet", *argv],
                          env=environment(tmp_path, TMPDIR=str(tmp_path), **env),
                          capture_output=True, text=True, timeout=120)


def one_line(out) -> str:
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


@pytest.mark.parametrize("argv", [["fleet", "devices"], ["fleet", "warm", "m:f", "-o", "x"]])
def test_without_ray_one_line_names_the_extra(tmp_path, argv):
    out = cli_without_ray(tmp_path, *argv)
    assert out.returncode == 2
    assert "pip install 'clmodes[fleet]'" in one_line(out)
    assert not (tmp_path / "x").exists()


def test_other_verbs_work_without_ray(tmp_path):
    out = cli_without_ray(tmp_path, "cache", "info", "--json")
    assert out.returncode == 0, out.stderr
    assert "location" in json.loads(out.stdout)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_cluster_at_the_address_is_one_line(tmp_path):
    pytest.importorskip("ray")
    address = f"127.0.0.1:{free_port()}"
    out = fleet_cli(tmp_path, "devices", "--address", address)
    assert out.returncode == 2 and f"no Ray cluster at {address}" in one_line(out)


def test_no_cluster_anywhere_is_one_line(tmp_path):
    pytest.importorskip("ray")
    out = fleet_cli(tmp_path, "warm", "support.fleet_workloads:small", "-o",
                    str(tmp_path / "out.clmodes"))
    assert out.returncode == 2 and "no Ray cluster to connect to" in one_line(out)
    assert not (tmp_path / "out.clmodes").exists()


def test_bad_workload_and_existing_output_are_refused_before_connecting(tmp_path):
    pytest.importorskip("ray")
    out = fleet_cli(tmp_path, "warm", "no_colon", "-o", str(tmp_path / "o"))
    assert out.returncode == 2 and "expected MODULE:FUNCTION" in one_line(out)
    existing = tmp_path / "existing.clmodes"
    existing.write_bytes(b"the user's file")
    out = fleet_cli(tmp_path, "warm", "m:f", "-o", str(existing))
    assert out.returncode == 2 and "exists; pass --force" in one_line(out)
    assert existing.read_bytes() == b"the user's file"


def test_cluster_with_no_opencl_device_is_one_line(tmp_path):
    pytest.importorskip("ray")
    reason = FleetCluster.unusable()
    if reason:
        pytest.skip(reason)
    workdir = Path(tempfile.mkdtemp(prefix="clf-", dir="/tmp"))
    cluster = FleetCluster(workdir, (), head="none")
    try:
        cluster.start(environment())
        for argv in (["devices"], ["warm", "support.fleet_workloads:small", "-o",
                                   str(tmp_path / "out.clmodes")]):
            out = cluster.cli("fleet", *argv)
            assert out["rc"] == 2, out["stderr"][-2000:]
            last = out["stderr"].strip().splitlines()[-1]
            assert last.startswith("clmodes: no OpenCL device on any node of the cluster")
    finally:
        cluster.close()
        shutil.rmtree(workdir, ignore_errors=True)
    assert not (tmp_path / "out.clmodes").exists()
