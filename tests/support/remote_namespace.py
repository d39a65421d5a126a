"""A real `redis-server` on loopback inside a private network and PID namespace.

    unshare --net --pid --fork --mount-proc bash -c \
        'ip link set lo up && python -m support.remote_namespace WORKDIR; exit $?'

Run that way by `RemoteNamespace` (below), this module is the controller inside the
namespace: it starts `redis-server` (no persistence, bound to 127.0.0.1) as its own
child, then serves requests, one JSON line each on standard input, answering one JSON
line: run a process inside (every clmodes process of a test runs here, so that it sees
the server and nothing else), stop, resume or kill the server it started (by the pid it
holds), or a Redis command. Nothing leaves loopback; when the controller exits (its
standard input closed), `bash`, PID 1 of the namespace, exits and the kernel ends every
process in it: no kill by name.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from support.namespace import Namespaced, unshare_unusable

PORT = 6390
URL = f"redis://127.0.0.1:{PORT}/0"


def start_redis(port: int, folder: Path, maxmemory: str | None = None) -> subprocess.Popen:
    """A redis-server on loopback `port`, without persistence, answering once returned
    (the tests' and bench_remote's server)."""
    argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", str(folder)]
    if maxmemory:
        argv += ["--maxmemory", maxmemory, "--maxmemory-policy", "noeviction"]
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import redis

    client = redis.Redis(port=port, socket_timeout=2)
    for _ in range(200):
        try:
            client.ping()
            return server
        except redis.RedisError:
            time.sleep(0.05)
    server.kill()
    raise RuntimeError("redis-server did not start")


class Controller:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.server: subprocess.Popen | None = None
        self.spawned: dict[int, subprocess.Popen] = {}

    def start_server(self, maxmemory: str | None = None) -> None:
        self.server = start_redis(PORT, self.workdir, maxmemory)

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request["op"]
        if op == "run":
            started = time.perf_counter()
            done = subprocess.run(request["argv"], env={**os.environ, **request["env"]},
                                  capture_output=True, text=True, timeout=request.get("timeout", 600))
            return {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                    "seconds": time.perf_counter() - started}
        if op == "spawn":
            process = subprocess.Popen(request["argv"], env={**os.environ, **request["env"]},
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.spawned[process.pid] = process
            return {"pid": process.pid}
        if op == "wait":
            process = self.spawned.pop(request["pid"])
            out, err = process.communicate(timeout=600)
            return {"returncode": process.returncode, "stdout": out, "stderr": err}
        if op == "server":  # stop | resume | kill | start
            assert self.server is not None
            action = request["action"]
            if action == "start":
                self.start_server(request.get("maxmemory"))
            else:
                sig = {"stop": signal.SIGSTOP, "resume": signal.SIGCONT,
                       "kill": signal.SIGKILL}[action]
                self.server.send_signal(sig)
                if action == "kill":
                    self.server.wait()
            return {"pid": self.server.pid}
        if op == "redis":
            import redis

            client = redis.Redis(port=PORT, socket_timeout=5)
            args = [base64.b64decode(a) for a in request["args"]]
            return {"result": _encodable(client.execute_command(*args))}
        raise ValueError(f"unknown op {op!r}")


def _encodable(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"b64": base64.b64encode(value).decode()}
    if isinstance(value, (list, tuple)):
        return [_encodable(v) for v in value]
    if isinstance(value, dict):
        return [[_encodable(k), _encodable(v)] for k, v in value.items()]
    return value


def decoded(value: Any) -> Any:
    """An answer's value with bytes restored."""
    if isinstance(value, dict) and set(value) == {"b64"}:
        return base64.b64decode(value["b64"])
    if isinstance(value, list):
        return [decoded(v) for v in value]
    return value


class RemoteNamespace(Namespaced):
    """The test's handle on a namespaced redis-server: `start()`, `run(...)`, `close()`."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir

    @staticmethod
    def unusable() -> str | None:
        """Why the tests cannot run here (they then skip), or None."""
        if shutil.which("redis-server") is None:
            return "redis-server is not installed (Debian: apt-get install redis-server)"
        try:
            import redis  # noqa: F401
        except ImportError:
            return "redis-py is not installed (pip install 'clmodes[remote]')"
        return unshare_unusable()

    def start(self, env: dict[str, str], maxmemory: str | None = None) -> None:
        self.launch(f"{sys.executable} -m support.remote_namespace {self.workdir} "
                    f"{maxmemory or ''}", env)

    def run(self, argv: list[str], env: dict[str, str], timeout: float = 600) -> dict[str, Any]:
        return self.ask("run", argv=argv, env=env, timeout=timeout)

    def redis(self, *args: bytes | str | int) -> Any:
        encoded = [base64.b64encode(a if isinstance(a, bytes) else str(a).encode()).decode()
                   for a in args]
        return decoded(self.ask("redis", args=encoded)["result"])


def main(argv: list[str]) -> int:
    controller = Controller(Path(argv[0]))
    try:
        controller.start_server(argv[1] if len(argv) > 1 and argv[1] else None)
    except Exception as error:  # noqa: BLE001 - reported to the test, one line
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    print(json.dumps({"ready": URL}), flush=True)
    for line in sys.stdin:
        try:
            answer = controller.handle(json.loads(line))
        except Exception as error:  # noqa: BLE001 - reported to the test
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
