"""A real multi-node Ray cluster on this machine, inside a network and PID namespace.

    unshare --net --pid --fork --mount-proc bash -c \
        'ip link set lo up && python -m support.fleet_cluster WORKDIR HEAD [INTEL...]; exit $?'

(HEAD: the head node's runtime, `pocl` or `none`; then the names of Intel-only nodes,
each optionally `NAME@CPUS` to pin that node's processes to those CPUs with `taskset`:
a benchmark's way to give each node cores of its own.)

Run that way by `FleetCluster` (below), this module is the controller inside the
namespace: it starts the nodes and then serves requests, one JSON line each on standard
input, answering one JSON line on standard output (run a command inside, start a node,
run a command and kill a node's raylet mid-way). Nothing leaves loopback, every node
binds 127.0.0.1, and the namespace's first process is `bash`, so when this controller
exits (its standard input closed) `bash` exits and the kernel ends every process of the
namespace: no `ray stop`, no kill by name.

Each node is a different machine by its OpenCL runtimes: pyopencl's wheel always adds
the ICDs it ships (PoCL, Oclgrind) from `$PYOPENCL_HOME/.libs`, whatever
`OCL_ICD_VENDORS` says, so every node also gets a view of pyopencl (symlinks) whose
`.libs` holds the libraries but no ICD file, first on its `PYTHONPATH`; its
`OCL_ICD_VENDORS` directory then registers exactly its runtimes (PoCL only, Intel's CPU
runtime only). A PoCL node takes PyPI's PoCL where it is usable on this CPU, else the
system's (`_pocl_candidates`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from support.namespace import Namespaced, unshare_unusable

PORT = 6379
KINDS = ("pocl", "intel", "none")  # "none": a node with no OpenCL runtime at all
STARTUP_SECONDS = 120


def _pocl_candidates() -> list[str]:
    """PyPI's PoCL (pyopencl's wheel), then the system's (Debian's `pocl-opencl-icd`)."""
    import pyopencl

    libs = Path(pyopencl.__file__).parent / ".libs"
    found = [str(p) for p in sorted(libs.glob("libpocl*.so*"))]
    for icd in sorted(Path("/etc/OpenCL/vendors").glob("*pocl*.icd")):
        found.append(icd.read_text().strip())
    return found


def _usable_on(env: dict[str, str]) -> bool:
    """Does `clmodes devices` find a usable device with only this image's runtimes?"""
    done = subprocess.run([sys.executable, "-m", "clmodes", "devices", "--json"],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    try:
        return any(d["usable"] for d in json.loads(done.stdout))
    except (ValueError, KeyError, TypeError):
        return False


def _write_vendor(image: Path, kind: str, library: str) -> None:
    vendors = image / "vendors"
    vendors.mkdir(exist_ok=True)
    (vendors / f"{kind}.icd").write_text(f"{library}\n")


def build_image(workdir: Path, kind: str) -> dict[str, str]:
    """The environment of a node with `kind`'s runtime only."""
    import pyopencl

    package = Path(pyopencl.__file__).parent
    image = workdir / "images" / kind
    view = image / "site" / "pyopencl"
    (view / ".libs").mkdir(parents=True, exist_ok=True)
    for entry in package.iterdir():
        if entry.name != ".libs" and not (view / entry.name).exists():
            (view / entry.name).symlink_to(entry)
    for library in (package / ".libs").iterdir():
        if not library.name.endswith(".icd") and not (view / ".libs" / library.name).exists():
            (view / ".libs" / library.name).symlink_to(library)
    path = os.pathsep.join([str(image / "site"), os.environ.get("PYTHONPATH", "")])
    env = {"OCL_ICD_VENDORS": str(image / "vendors"), "PYTHONPATH": path}
    if kind == "none":
        (image / "vendors").mkdir(exist_ok=True)
        return env
    if kind == "intel":
        _write_vendor(image, kind, str(Path(sys.prefix) / "lib" / "libintelocl.so"))
        return env
    # On CPUs PyPI's PoCL (LLVM 14) does not know (AMD family 26), the system's serves,
    # as it does for the tests on this machine.
    candidates = _pocl_candidates()
    for library in candidates:
        _write_vendor(image, kind, library)
        if _usable_on(env):
            return env
    _write_vendor(image, kind, candidates[0])  # none usable: the tests then say so
    return env


class Controller:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.markers = workdir / "markers"
        self.markers.mkdir(parents=True, exist_ok=True)
        self.images = {kind: build_image(workdir, kind) for kind in KINDS}
        self.nodes: dict[str, str] = {}  # name -> kind

    def base_env(self) -> dict[str, str]:
        return {**os.environ, "RAY_USAGE_STATS_ENABLED": "0",
                "RAY_ADDRESS": f"127.0.0.1:{PORT}",
                # A killed node is declared dead in about 3 s instead of 30.
                "RAY_health_check_initial_delay_ms": "1000",
                "RAY_health_check_period_ms": "1000",
                "RAY_health_check_timeout_ms": "1000",
                "RAY_health_check_failure_threshold": "3",
                "CLMODES_FLEET_TEST_MARKERS": str(self.markers)}

    def start_node(self, name: str, kind: str, head: bool = False,
                   cpus: str | None = None) -> dict[str, Any]:
        env = {**self.base_env(), **self.images[kind], "CLMODES_FLEET_TEST_NODE": name}
        where = ["--head", f"--port={PORT}", "--include-dashboard=false",
                 f"--temp-dir={self.workdir / 'ray'}"] if head else [f"--address=127.0.0.1:{PORT}"]
        # The head offers no CPU, as large clusters run it: jobs must still reach it.
        pin = ["taskset", "-c", cpus] if cpus else []  # the raylet and its workers inherit it
        argv = [*pin, "ray", "start", *where, "--node-ip-address=127.0.0.1",
                f"--num-cpus={0 if head else 1}",
                "--object-store-memory=78643200", "--disable-usage-stats"]
        done = subprocess.run(argv, env=env, capture_output=True, text=True,
                              timeout=STARTUP_SECONDS)
        if done.returncode == 0:
            self.nodes[name] = kind
        return {"rc": done.returncode, "stderr": done.stderr[-3000:]}

    def run(self, argv: list[str], env: dict[str, str] | None = None,
            timeout: float = 300) -> dict[str, Any]:
        started = time.perf_counter()
        done = subprocess.run(argv, env={**self.base_env(), **(env or {})}, capture_output=True,
                              text=True, timeout=timeout)
        return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                "seconds": time.perf_counter() - started}

    def run_killing(self, argv: list[str], env: dict[str, str] | None = None,
                    timeout: float = 300) -> dict[str, Any]:
        """Run `argv`; when a workload marks a node (it is mid-warm there), SIGKILL that
        node's raylet by its PID."""
        for marker in self.markers.iterdir():
            marker.unlink()
        process = subprocess.Popen(argv, env={**self.base_env(), **(env or {})},
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed = None
        deadline = time.monotonic() + timeout
        while killed is None and process.poll() is None and time.monotonic() < deadline:
            marked = list(self.markers.iterdir())
            if marked:
                killed = {"node": marked[0].name, "raylet": raylet_of(marked[0].name)}
                os.kill(killed["raylet"], signal.SIGKILL)
                self.nodes.pop(marked[0].name, None)
            time.sleep(0.2)
        stdout, stderr = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
        return {"rc": process.returncode, "stdout": stdout, "stderr": stderr, "killed": killed}

    def serve(self) -> None:
        for line in sys.stdin:
            request = json.loads(line)
            op = request.pop("op")
            try:
                answer = getattr(self, op)(**request)
            except Exception as error:  # noqa: BLE001 - the test reads it and fails
                answer = {"error": f"{type(error).__name__}: {error}"}
            print(json.dumps(answer), flush=True)


def raylet_of(node: str) -> int:
    """The PID of the raylet started with `CLMODES_FLEET_TEST_NODE=node` (this PID
    namespace shows only this cluster's processes)."""
    wanted = f"CLMODES_FLEET_TEST_NODE={node}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "raylet":
                continue
            if wanted in (entry / "environ").read_bytes().split(b"\0"):
                return int(entry.name)
        except OSError:
            continue
    raise LookupError(f"no raylet of node {node}")


class FleetCluster(Namespaced):
    """The test's handle on a namespaced cluster: `start()` it, ask it, `close()` it."""

    what = "cluster controller"

    def __init__(self, workdir: Path, intel_nodes: tuple[str, ...],
                 head: str = "pocl") -> None:
        self.workdir = workdir
        self.intel_nodes = intel_nodes
        self.head = head

    unusable = staticmethod(unshare_unusable)

    def start(self, env: dict[str, str]) -> list[str]:
        return self.launch(f"{sys.executable} -m support.fleet_cluster {self.workdir} "
                           f"{self.head} {' '.join(self.intel_nodes)}", env)

    def cli(self, *args: str, kill: bool = False, **env: str) -> dict[str, Any]:
        """`clmodes ARGS` run inside the namespace (a driver on the cluster's machine)."""
        argv = [sys.executable, "-m", "clmodes", *args]
        return self.ask("run_killing" if kill else "run", argv=argv, env=env)


def main(argv: list[str]) -> int:
    controller = Controller(Path(argv[0]))
    layout = [(f"{argv[1]}-head", argv[1], True, None)] + [
        (n.partition("@")[0], "intel", False, n.partition("@")[2] or None) for n in argv[2:]]
    for name, kind, head, cpus in layout:
        started = controller.start_node(name, kind, head, cpus)
        if started["rc"] != 0:
            print(json.dumps({"error": f"node {name} did not start: {started['stderr']}"}),
                  flush=True)
            return 1
    print(json.dumps({"ready": sorted(controller.nodes)}), flush=True)
    controller.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
