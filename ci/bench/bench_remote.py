#!/usr/bin/env python
"""A fresh machine's time to its first result: with the team's remote warm, cold, and
from a signed bundle; and what a miss costs when the remote is down.

    python ci/bench/bench_remote.py [--json OUT] [--reps N] [--devices pocl,intel] [--smoke]
    python ci/bench/bench_remote.py --hostile [--json OUT] [--misses N] [--limit BYTES]

Per device, once: `clmodes warm` of the workload (kernels_cl's MLP at small sizes;
`--smoke`: `ci/bench/warm_workload.py` at 4096 elements, one rep, the default device)
into a maker store, published to a `redis-server` this script starts on loopback (its
own child, stopped by its pid; the script re-runs itself in a private network and PID
namespace first, where it can) and exported as a signed bundle. Then per rep, the sides
in rotated order, each a fresh store and fresh processes, timed from the first process'
start to the workload's end (`clmodes check`: the workload in EXECUTE):

- `remote`: `$CLMODES_REMOTE` set, the key trusted: everything is read through;
- `cold`: no remote: everything compiles and tunes;
- `bundle`: `clmodes bundle import` (with its load check), then the run;
- `down_refused`: a remote whose port is closed (connection refused), cold otherwise;
- `down_stopped`: the server stopped (SIGSTOP: it accepts, never answers): the socket
  timeout, once, cold otherwise.

Prints medians and ratios against cold; the down sides' cost is their difference from
cold (the timeout the first miss paid, inside the noise of whole runs). So the miss
itself is also timed in this process, side by side, per rep: a store's first tune miss
with no remote, with a remote answering (a miss there too), refused, and stopped; and
a second miss once the remote is marked down (what every later miss costs). Needs `redis-server` and redis-py
(`clmodes[remote]`).

`--hostile`: the worst a hostile remote can cost one process, at the default bounds
(docs/remote.md; it was `ci/bench/remote_hostile.py` until folded in here).
Time: a reader (N tune misses and N kernel misses, each a round trip while the remote
is up) and a publisher (`publish_entries` of one binary, kernel and tune entry) facing
each behaviour of `tests/support/hostile_redis.py`: slow (1.5 s per reply, inside the
2 s socket timeout), trickle (one byte per 0.5 s), stall (accepts, never answers),
nested (200,000 nested arrays), garbage (a 1 MB error line). Each a fresh child process;
reported: the wall time of its misses (or its publish), against the 2.5 s budget.

Memory: a reader's peak RSS above its RSS before the read (`VmHWM` reset through
`/proc/self/clear_refs`), facing, at the entry limit (default 256 MiB, `--limit`), a
value one MiB under it that looks like an entry and does not verify, and one over it
(twice the limit), in a `redis-server` this script starts on a loopback port (its own
child on a free loopback port, ended by its pid).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
import benchlib  # noqa: E402
from support.hostile_redis import HostileRedis  # noqa: E402
from support.remote_namespace import start_redis  # noqa: E402

SELECTORS = {"pocl": "Portable Computing Language", "intel": "Intel(R) OpenCL"}
SIDES = ("remote", "cold", "bundle", "down_refused", "down_stopped")


NAMESPACED = "CLMODES_BENCH_REMOTE_NAMESPACED"
UNSHARE = ["unshare", "--net", "--pid", "--fork", "--mount-proc"]


def into_own_namespace() -> None:
    """Re-run this script inside a private network and PID namespace, as the tests run
    their servers: its redis-server listens on that namespace's loopback only, and it
    ends with the namespace's first process (this script), whatever happens to it.
    Where no namespace can be made (no `unshare`, not permitted), it runs here."""
    if os.environ.get(NAMESPACED) or shutil.which("unshare") is None:
        return
    if subprocess.run([*UNSHARE, "true"], capture_output=True).returncode != 0:
        return
    script = "ip link set lo up && exec " + shlex.join([sys.executable, *sys.argv])
    done = subprocess.run([*UNSHARE, "bash", "-c", script], env={**os.environ, NAMESPACED: "1"})
    sys.exit(done.returncode)


class Server:
    """A redis-server of this script's own, on loopback, without persistence."""

    def __init__(self, folder: Path) -> None:
        self.port = benchlib.free_port()
        self.process = start_redis(self.port, folder)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def signal(self, sig: signal.Signals) -> None:
        self.process.send_signal(sig)

    def close(self) -> None:
        self.process.send_signal(signal.SIGCONT)
        self.process.kill()
        self.process.wait()


def environment(folder: Path, store: str, device: str | None, **extra: str) -> dict[str, str]:
    return benchlib.child_env(store=folder / store, device=device, **{
        "CLMODES_CONFIG_DIR": str(folder / "config"), "CLMODES_REMOTE": "",
        "CLMODES_TRUSTED_KEYS": "", "CLMODES_SIGNING_KEY": "", "WARM_BENCH_SIZE": "4096",
        "KERNELS_CL_BATCH": "16", "KERNELS_CL_HIDDEN": "64", **extra})


def clmodes(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return benchlib.run_child(benchlib.clmodes_cli(*args), f"clmodes {args[0]}", env=env,
                              timeout=900, ok=(0, 1) if args[0] == "check" else (0,))


def make(folder: Path, device: str | None, workload: str, server: Server) -> tuple[Path, Path]:
    key, bundle = folder / "team.key", folder / "warm.clmodes"
    if not key.exists():
        clmodes(environment(folder, "maker", device), "bundle", "keygen", str(key))
    env = environment(folder, f"maker-{device}", device, CLMODES_REMOTE=server.url)
    clmodes(env, "warm", workload, "--sign", str(key))
    clmodes(env, "bundle", "export", str(bundle), "--sign", str(key))
    return bundle, key.with_name(key.name + ".pub")


def first_result(folder: Path, name: str, device: str | None, workload: str, side: str,
                 server: Server, bundle: Path, public: Path) -> tuple[float, dict]:
    """Seconds from a fresh machine's first process to the workload's end, and the
    check's report (what it compiled, loaded, tuned)."""
    extra = {"CLMODES_TRUSTED_KEYS": str(public)}
    if side == "remote":
        extra["CLMODES_REMOTE"] = server.url
    elif side == "down_refused":
        extra["CLMODES_REMOTE"] = f"redis://127.0.0.1:{benchlib.free_port()}/0"
    elif side == "down_stopped":
        extra["CLMODES_REMOTE"] = server.url
    env = environment(folder, name, device, **extra)
    if side == "down_stopped":
        server.signal(signal.SIGSTOP)
    try:
        started = time.perf_counter()
        if side == "bundle":
            clmodes(env, "bundle", "import", str(bundle))
        done = clmodes(env, "check", workload, "--json")
        seconds = time.perf_counter() - started
    finally:
        if side == "down_stopped":
            server.signal(signal.SIGCONT)
    return seconds, json.loads(done.stdout)


def measure(folder: Path, device: str | None, workload: str, reps: int,
            server: Server) -> dict[str, object]:
    bundle, public = make(folder, device, workload, server)
    counts: dict[str, dict[str, int]] = {}

    def run(side: str, rep: int) -> float:
        seconds, report = first_result(folder, f"fresh-{device}-{side}-{rep}", device,
                                       workload, side, server, bundle, public)
        counts[side] = {"compiled": report["compilation"]["compiled"],
                        "loaded": report["compilation"]["loaded"],
                        "tuned": report["autotune"]["keys"]}
        return seconds

    times = benchlib.rounds(SIDES, reps, run)
    medians = benchlib.medians(times)
    cold = medians["cold"]
    return {"device": device or "default", "seconds": times, "median_s": medians,
            "counts": counts,
            "remote_over_cold_ratio": medians["remote"] / cold,
            "bundle_over_cold_ratio": medians["bundle"] / cold,
            "remote_over_bundle_ratio": medians["remote"] / medians["bundle"],
            "down_refused_cost_s": medians["down_refused"] - cold,
            "down_stopped_cost_s": medians["down_stopped"] - cold}


def miss_costs(server: Server, reps: int) -> dict[str, object]:
    """Seconds of one store miss in this process: (first, second) per remote state."""
    import logging

    from clmodes import Store, remote

    logging.getLogger("clmodes").setLevel(logging.ERROR)  # the expected down warnings
    states = ("none", "answering", "refused", "stopped")
    first: dict[str, list[float]] = {s: [] for s in states}
    second: dict[str, list[float]] = {s: [] for s in states}
    for rep in range(reps):
        for state in benchlib.rotated(list(states), rep):
            url = {"none": None, "answering": server.url, "stopped": server.url,
                   "refused": f"redis://127.0.0.1:{benchlib.free_port()}/0"}[state]
            remote.configure(url)
            store = Store(None)
            if state == "stopped":
                server.signal(signal.SIGSTOP)
            try:
                for n, into in enumerate((first, second)):
                    started = time.perf_counter()
                    store.get_tune_json("model", "bench", f"key-{rep}-{n}", "c")
                    into[state].append(time.perf_counter() - started)
            finally:
                if state == "stopped":
                    server.signal(signal.SIGCONT)
                store.close()
    remote.configure(None)
    first_m, second_m = benchlib.medians(first), benchlib.medians(second)
    return {"first_miss_s": first_m, "second_miss_s": second_m,
            "answering_over_none_ratio": first_m["answering"] / first_m["none"]}


# -- --hostile ----------------------------------------------------------------------------

BEHAVIOURS = (("slow", 1.5), ("trickle", 0.5), ("stall", 0.0), ("nested", 0.0),
              ("garbage", 0.0))
READER = """
import json, logging, sys, time, clmodes
logging.basicConfig(level=logging.WARNING)
store = clmodes.Store(None)
started = time.monotonic()
for n in range(int(sys.argv[1])):
    store.get_tune_json("m", "t", f"k{n}", "c")
    store.kernel_batches("e", [f"kernel{n}"])
print(json.dumps({"seconds": time.monotonic() - started}))
"""
PUBLISHER = """
import json, logging, sys, time, clmodes.remote as r
from clmodes.bundle import keygen
from clmodes.store import BinaryRow, KernelRow, StoreEntries, TuneRow, FORMAT_VERSION
logging.basicConfig(level=logging.WARNING)
keygen(sys.argv[2])
r.configure(sys.argv[1])
rows = StoreEntries([TuneRow(FORMAT_VERSION, "PoCL | cpu", "t", "k", "c", "{}")],
                    [BinaryRow("e", "b1", "[]", b"\\x7fELF" * 64, "0" * 64)],
                    [KernelRow("e", "kernel1", "b1", "f", "[]")])
started = time.monotonic()
r.publish_entries(rows, sys.argv[2])
print(json.dumps({"seconds": time.monotonic() - started}))
"""
MEMORY = """
import json, logging, os, sys
import clmodes
from clmodes.bundle import keygen, load_public_key
from clmodes.bundle.signing import load_private_key
from clmodes.remote import configure, entry, layout
import redis
logging.basicConfig(level=logging.WARNING)
url, folder, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
keygen(folder + "/k")
client = redis.Redis.from_url(url)
private = load_private_key(folder + "/k")
header = b'{"content":{},"signer":"' + b"A" * 43 + b'="}'
for kernel, batch, size in (("k1", "b1", limit - (1 << 20)), ("k2", "b2", 2 * limit)):
    name = layout.kernel_key("e", kernel)
    client.set(name, entry.encode(name, {"exact": "e", "kernel_key": kernel, "batch": batch,
                                         "name": "f", "args": "[]"}, b"", private))
    binary = layout.binary_key("e", batch)
    client.set(binary, entry.MAGIC + len(header).to_bytes(4, "big") + header)
    client.setrange(binary, size - 1, b"\\0")
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
store = clmodes.Store(None)
configure(url, trusted_keys=[folder + "/k.pub"], load_check=False)
peaks = {}
for kernel in ("k1", "k2"):
    before = rss("VmRSS:")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    store.kernel_batches("e", [kernel])
    peaks[kernel] = rss("VmHWM:") - before
print(json.dumps({"under_limit_peak": peaks["k1"], "over_limit_peak": peaks["k2"]}))
"""


def hostile_child(code: str, *argv: str, env: dict[str, str] | None = None) -> dict:
    env = benchlib.child_env(path=[benchlib.ROOT / "tests"], **(env or {}))
    done = benchlib.run_child(benchlib.python(code, *argv), "a --hostile child", env=env,
                              timeout=600)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["warnings"] = sum("WARNING" in line for line in done.stderr.splitlines())
    result["traceback"] = "Traceback" in done.stderr
    return result


def times(misses: int, folder: Path) -> dict[str, dict]:
    found = {}
    for mode, delay in BEHAVIOURS:
        with HostileRedis(mode, delay) as server:
            env = {"CLMODES_REMOTE": server.url, "CLMODES_CACHE_DIR": str(folder / mode)}
            read = hostile_child(READER, str(misses), env=env)
            published = hostile_child(PUBLISHER, server.url, str(folder / f"{mode}.key"), env=env)
        found[mode] = {"reader_s": round(read["seconds"], 3),
                       "publisher_s": round(published["seconds"], 3),
                       "warnings": read["warnings"], "traceback": read["traceback"]}
        print(f"{mode:8s} reader {read['seconds']:6.2f} s  publisher "
              f"{published['seconds']:6.2f} s  warnings {read['warnings']}", flush=True)
    return found


def memory(limit: int, folder: Path) -> dict:
    port = benchlib.free_port()
    server = start_redis(port, folder)
    try:
        found = hostile_child(MEMORY, f"redis://127.0.0.1:{port}/0", str(folder), str(limit),
                      env={"CLMODES_REMOTE_MAX_ENTRY": str(limit),
                           "CLMODES_CACHE_DIR": str(folder / "memory")})
    finally:
        server.kill()
        server.wait()
    result = {"limit": limit, **{k: found[k] for k in ("under_limit_peak", "over_limit_peak")}}
    result["under_ratio"] = round(found["under_limit_peak"] / limit, 3)
    result["over_ratio"] = round(found["over_limit_peak"] / limit, 3)
    print(f"memory at a {limit >> 20} MiB limit: a bad entry just under it "
          f"{found['under_limit_peak'] / 2**20:.0f} MiB peak ({result['under_ratio']}x); "
          f"one at twice the limit {found['over_limit_peak'] / 2**20:.0f} MiB "
          f"({result['over_ratio']}x)", flush=True)
    return result


def hostile(args) -> None:
    """`--hostile`: the reader's and publisher's times per behaviour, and the memory."""
    with tempfile.TemporaryDirectory() as tmp:
        results = {"times": times(args.misses, Path(tmp)),
                   "memory": memory(args.limit, Path(tmp)), "when": time.time()}
    benchlib.write_json(args.json, results)


def main() -> None:
    parser = benchlib.parser(__doc__, reps=3, smoke_help="seconds (ci/bench/run --smoke)")
    parser.add_argument("--devices", default="pocl,intel",
                        help="comma-separated: pocl, intel, or CLMODES_DEVICE selectors")
    parser.add_argument("--hostile", action="store_true",
                        help="what hostile remotes cost a reader and a publisher, instead")
    parser.add_argument("--misses", type=int, default=20, help="--hostile: tune and kernel misses")
    parser.add_argument("--limit", type=int, default=256 << 20, help="--hostile: entry limit")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("bench_remote: redis-server is not installed (Debian: apt-get install "
                 "redis-server)")
    into_own_namespace()
    if args.hostile:
        return hostile(args)
    workload = "kernels_cl.workloads:mlp"
    devices: list[str | None] = [SELECTORS.get(d, d) for d in args.devices.split(",") if d]
    if args.smoke:
        workload, args.reps = "warm_workload:workload", 1
        devices = [os.environ.get("CLMODES_DEVICE")]
    folder = Path(tempfile.mkdtemp(prefix="clmodes-bench-remote-"))
    (folder / "config").mkdir()
    load_before = benchlib.loadavg()
    server = Server(folder)
    results = []
    try:
        misses = miss_costs(server, max(args.reps, 3))
        f, later = misses["first_miss_s"], misses["second_miss_s"]
        print("one store miss, in this process (median): first / second")
        for state in f:
            print(f"  remote {state:9s} {f[state] * 1000:8.2f} ms / {later[state] * 1000:6.3f} ms")
        for device in devices:
            found = measure(folder, device, workload, args.reps, server)
            results.append(found)
            m = found["median_s"]
            print(f"{found['device']}: first result on a fresh machine (median of {args.reps})")
            for side in SIDES:
                print(f"  {side:13s} {m[side]:6.2f} s  {found['counts'][side]}")
            print(f"  remote/cold {found['remote_over_cold_ratio']:.2f}x, bundle/cold "
                  f"{found['bundle_over_cold_ratio']:.2f}x, remote/bundle "
                  f"{found['remote_over_bundle_ratio']:.2f}x; a down remote adds "
                  f"{found['down_refused_cost_s']:+.2f} s (refused), "
                  f"{found['down_stopped_cost_s']:+.2f} s (stopped: the socket timeout)",
                  flush=True)
    finally:
        server.close()
        shutil.rmtree(folder, ignore_errors=True)
    load_after = benchlib.loadavg()
    print(f"load: {benchlib.load_text(load_before and load_before[0], load_after and load_after[0])}")
    benchlib.write_json(args.json, {"workload": workload, "smoke": args.smoke,
                                    "reps": args.reps, "devices": results, "misses": misses,
                                    "load_before": load_before, "load_after": load_after})


if __name__ == "__main__":
    main()
