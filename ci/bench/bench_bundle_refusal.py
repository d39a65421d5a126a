#!/usr/bin/env python
"""What refusing a large bundle costs: peak memory and time, per way of being wrong.

    python ci/bench/bench_bundle_refusal.py [--mb 500] [--folder DIR] [--json OUT] [--smoke]

Once (kept in --folder when given, so a rerun on other code reuses it): a store of
--mb MB of program binaries (random bytes, 50 MB each, for a recorded device: nothing
loads them) exported to a signed bundle. Then each case is refused by
`bundle.install` in a fresh child process, which reports its peak resident memory
(`VmHWM`), how much of it came after the interpreter and clmodes had started, and the
seconds the refusal took:

- tampered: one byte of the payload flipped, not re-signed;
- resigned: a binary whose bytes no longer match its sha256 row, re-signed by the
  trusted key (refused by what it holds, after every byte was read);
- oversized: the good bundle under a size limit below its size.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import benchlib  # noqa: E402

CHUNK_MB = 50
CHILD = r"""
import json, sys, time
from pathlib import Path
from clmodes import Store, bundle
sys.path.insert(0, sys.argv[4])
from support.bundles import fixture_device
def peak_kb():  # VmHWM: this process's own peak (ru_maxrss would carry its parent's over exec)
    line = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    return int(line.split()[1])
base = peak_kb()
started = time.perf_counter()
try:
    bundle.install(sys.argv[1], Store(sys.argv[2]), local=[fixture_device("nvidia-rtx4090-550")],
                   trusted_keys=[sys.argv[3]])
    line = "imported"
except bundle.BundleError as error:
    line = str(error)
seconds = time.perf_counter() - started
peak = peak_kb()
print(json.dumps({"seconds": round(seconds, 2), "peak_rss_mb": round(peak / 1024),
                  "growth_mb": round((peak - base) / 1024), "line": line[-160:]}))
"""


def make(folder: Path, megabytes: int) -> tuple[Path, Path]:
    """The good bundle and the trusted public key (made once)."""
    import clmodes
    from clmodes import bundle

    sys.path.insert(0, str(benchlib.ROOT / "tests"))
    from support.bundles import fixture_device

    good, key = folder / "good.clmodes", folder / "publisher.key"
    if good.exists():
        return good, key.with_name(key.name + ".pub")
    bundle.keygen(key)
    store = clmodes.Store(folder / "maker")
    exact = fixture_device("nvidia-rtx4090-550").fingerprint.exact
    for number in range(max(1, megabytes // CHUNK_MB)):
        store.put_binary(exact, f"batch-{number}", [f"u{number}"], os.urandom(CHUNK_MB << 20),
                         [(f"kernel-{number}", "k", None)])
    bundle.export(good, store=store, sign=key)
    store.close()
    return good, key.with_name(key.name + ".pub")


def tampered(good: Path, folder: Path) -> Path:
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 1
    out = folder / "tampered.clmodes"
    out.write_bytes(data)
    return out


def resigned(good: Path, folder: Path, key: Path) -> Path:
    """The payload with one binary's sha256 row changed, in a container re-signed by `key`."""
    sys.path.insert(0, str(benchlib.ROOT / "tests"))
    from support.bundles import container, mutated_payload, parts

    out = folder / "resigned.clmodes"
    if not out.exists():
        manifest, payload = parts(good.read_bytes())
        changed = mutated_payload(payload, ["UPDATE binaries SET sha256 = 'x' || substr(sha256, 2) "
                                            "WHERE batch = 'batch-0'"])
        out.write_bytes(container(manifest, changed, key))
    return out


def refuse(path: Path, public: Path, folder: Path, **env: str) -> dict:
    with tempfile.TemporaryDirectory(dir=folder) as store:
        return benchlib.child_json(
            benchlib.python(CHILD, path, store, public, benchlib.ROOT / "tests"),
            f"refusing {path.name}", benchlib.child_env(path=(), **env))


def main() -> None:
    parser = benchlib.parser(__doc__, json_type=Path,
                             smoke_help="a 4 MB bundle (ci/bench/run --smoke)")
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--folder", type=Path)
    options = parser.parse_args()
    if options.smoke:
        options.mb = 4
    folder = options.folder or Path(tempfile.mkdtemp(prefix="clmodes-refusal-"))
    folder.mkdir(parents=True, exist_ok=True)
    good, public = make(folder, options.mb)
    key = public.with_suffix("")
    size = good.stat().st_size
    cases = {"tampered": (tampered(good, folder), {}),
             "resigned": (resigned(good, folder, key), {}),
             "oversized": (good, {"CLMODES_BUNDLE_MAX_SIZE": str(size // 2)})}
    results = {"bundle_mb": round(size / 2**20), "load_1min": benchlib.loadavg_1min()}
    for name, (path, env) in cases.items():
        results[name] = refuse(path, public, folder, **env)
        results[name]["growth_over_bundle_size"] = round(results[name]["growth_mb"] * 2**20 / size, 3)
        print(f"{name:9s} {results[name]['seconds']:6.2f} s  peak {results[name]['peak_rss_mb']:5d} MB "
              f"(+{results[name]['growth_mb']} MB)  {results[name]['line'][-90:]}", flush=True)
    print(json.dumps(results))
    benchlib.write_json(options.json, results)


if __name__ == "__main__":
    main()
