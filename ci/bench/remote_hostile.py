#!/usr/bin/env python
"""The worst a hostile remote can cost one process, at the default bounds.

    python ci/bench/remote_hostile.py [--json OUT] [--misses N] [--limit BYTES]

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
child on a free loopback port, ended by its pid). Needs redis-server and redis-py (`clmodes[remote]`).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import benchlib

ROOT = benchlib.ROOT
sys.path.insert(0, str(ROOT / "tests"))
from support.hostile_redis import HostileRedis  # noqa: E402
from support.remote_namespace import start_redis  # noqa: E402

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


def child(code: str, *argv: str, env: dict[str, str] | None = None) -> dict:
    done = benchlib.run_child(benchlib.python(code, *argv), "a remote_hostile child",
                              env=benchlib.child_env(path=[ROOT / "tests"], **(env or {})),
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
            read = child(READER, str(misses), env=env)
            published = child(PUBLISHER, server.url, str(folder / f"{mode}.key"), env=env)
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
        found = child(MEMORY, f"redis://127.0.0.1:{port}/0", str(folder), str(limit),
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


def main() -> int:
    parser = benchlib.parser(__doc__, json_type=Path)
    parser.add_argument("--misses", type=int, default=20)
    parser.add_argument("--limit", type=int, default=256 << 20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {"times": times(args.misses, Path(tmp)),
                   "memory": memory(args.limit, Path(tmp)), "when": time.time()}
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
