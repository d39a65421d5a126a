"""A controller process inside a private network and PID namespace, and the test's
handle on it: one JSON request per line in, one JSON answer per line out.

The fleet tests (a Ray cluster) and the remote tests (a redis-server) both run their
servers this way, on loopback only, and stop them by ending the namespace's first
process (bash, PID 1 inside): never by name, never with `ray stop` outside it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

UNSHARE = ["unshare", "--net", "--pid", "--fork", "--mount-proc"]


def unshare_unusable() -> str | None:
    """Why a private namespace cannot be made here (the tests then skip), or None."""
    try:
        done = subprocess.run([*UNSHARE, "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unshare is not usable: {error}"
    return None if done.returncode == 0 else f"unshare refused: {done.stderr.strip()}"


class Namespaced:
    """The handle: `launch()` a controller module, `ask()` it, `close()` it."""

    what = "namespace controller"  # how its end is reported

    process: subprocess.Popen | None = None

    def launch(self, command: str, env: dict[str, str]) -> Any:
        """Start `command` (after bringing loopback up) as the namespace's controller;
        what its first line, `{"ready": ...}`, says."""
        script = f"ip link set lo up && {command}; exit $?"
        self.process = subprocess.Popen([*UNSHARE, "bash", "-c", script], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self._answer()
        if "ready" not in ready:
            raise RuntimeError(ready.get("error", ready))
        return ready["ready"]

    def _answer(self) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.what} ended (status {self.process.wait()})")
        return json.loads(line)

    def ask(self, op: str, **request: Any) -> dict[str, Any]:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op, **request}) + "\n")
        self.process.stdin.flush()
        answer = self._answer()
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self) -> None:
        """End the controller: bash (PID 1 inside) exits and the namespace goes with it."""
        if self.process is None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            for child in children(self.process.pid):  # bash, PID 1 inside
                os.kill(child, signal.SIGKILL)
            self.process.wait(timeout=30)


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found
