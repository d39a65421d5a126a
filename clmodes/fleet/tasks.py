"""What runs on a node. Each job is a fresh Python process started by the Ray task.

Why a process and not the Ray worker itself: clmodes keeps process-wide state (the
store, the clients, the selected device), and Ray reuses its workers; a fresh process
per job gets exactly the node's OpenCL runtimes, its own store in a fresh temporary
directory (never the node's user store) and `CLMODES_DEVICE`, and nothing of a previous
job. The workload's failure is a value returned (status and its last line), never an
exception raised through Ray, so that the driver can tell "the workload failed" from
"the node died" (Ray's system errors).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from clmodes import settings

BUNDLE_NAME = "target.clmodes"
ROLE_VARIABLE = settings.FLEET_SPREAD.name  # a spread job's role in its group (JSON)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def discover() -> dict[str, Any]:
    """This node's OpenCL devices, as `clmodes devices --json` lists them here."""
    done = subprocess.run([sys.executable, "-m", "clmodes", "devices", "--json"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return {"devices": [], "error": _last_line(done.stderr)}
    try:
        return {"devices": json.loads(done.stdout), "error": None}
    except ValueError:
        return {"devices": [], "error": f"unreadable device list: {_last_line(done.stdout)}"}


def warm_target(workload: str, device_index: int,
                role: dict[str, Any] | None = None) -> dict[str, Any]:
    """Warm `workload` on this node's device `device_index` into a fresh store, export it.

    `role`: this node's part in a spread group (`spread.Group.role`); the job joins the
    cluster at the address this task runs in. Returns the job's report (`status` "ok"
    with `bundle` bytes, or "failed" with `line`, the failure's last line) and the
    seconds the job took here."""
    started = time.perf_counter()
    directory = tempfile.mkdtemp(prefix="clmodes-fleet-")
    try:
        env = dict(os.environ)
        settings.CACHE_DIR.export(os.path.join(directory, "store"), env)
        settings.DEVICE.export(str(device_index), env)
        settings.FLEET_PARENT.export(str(os.getpid()), env)
        # Its fresh store is exported whole: a cap there would leave entries out.
        env.pop(settings.CACHE_MAX_SIZE.name, None)
        if role is not None:
            import ray

            address = ray.get_runtime_context().gcs_address
            env[ROLE_VARIABLE] = json.dumps({**role, "address": address})
        bundle = os.path.join(directory, BUNDLE_NAME)
        done = subprocess.run([sys.executable, "-m", "clmodes.fleet.node_warm", workload, bundle],
                              capture_output=True, text=True, env=env)
        report = _report(done)
        if report["status"] == "ok":
            with open(bundle, "rb") as stream:
                report["bundle"] = stream.read()
        report["seconds"] = time.perf_counter() - started
        return report
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _report(done: subprocess.CompletedProcess) -> dict[str, Any]:
    last = (done.stdout.strip().splitlines() or [""])[-1]
    try:
        report = json.loads(last)
    except ValueError:
        report = None
    if not isinstance(report, dict):
        # The process died before it could say (a crash in a driver, a kill).
        why = _last_line(done.stderr) if done.stderr.strip() else f"exit status {done.returncode}"
        return {"status": "failed", "line": why}
    return report
