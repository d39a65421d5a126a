"""Preparation on real-sized code: where a batched obtain spends its CPU, against plain builds.

Users batching John the Ripper's kernels (ten programs sharing large headers through
`-I`, each with its own `-D`s) found the batch's one build cheaper than ten plain builds
and the obtain five times slower: most of it preparing the units in Python, once, then
again after each compiler-probe round. This prints, side by side in one run, per case:

- *batched*, first run (fresh process, empty store): CPU seconds of preparation
  (`batch.plan` less the probe), the probe (`CompilerProbe.ask`), the builds
  (`building.build_batch`) and persistence (`programs.persist`: capturing the binaries
  into the store), and how many times a unit was preprocessed (`preprocess` calls that
  were not cache hits);
- *batched*, second run (a new process on the same store): the same split; the store
  serves every binary, so preparation there is what reading the store leaves;
- *plain*: CPU seconds of one `pyopencl.Program(...).build()` per program, every cache
  off: what a library building its programs one by one pays, persisting nothing;
- *plain, cached*: the same through pyopencl's own disk cache (its default, here in a
  fresh folder), which reads each built program's binary to keep it: the plain side that
  persists, as the batched side does. Not on PoCL: there pyopencl never uses its own
  cache (`pyopencl.characterize.has_src_build_cache`: it leaves caching to PoCL's kernel
  cache, which every side here turns off), so on PoCL this side is a plain build that
  persists nothing.

The batched side's *build* is the build of the one program the batch became: the raw
one-program build of the same units, the limit batching can reach.

CPU time (`time.process_time`, every thread of the process: PoCL and Intel compile in
process), not wall time: the 2-core machine is shared. Each measurement runs in a child
process of its own, so no cache of a previous one helps it.

Cases: `synthetic` (ten programs, each `#include`ing one generated header of ~3,000
lines of macros and inline functions through `-I`, each with its own defines) and `john`
(John the Ripper's pbkdf2, 7z, rar, zip, agile, ethereum, pgpdisk and wpapsk kernels
with the defines its host code passes, sharing 21 headers through `-I`: 31 files, 10,700
lines; `tests/corpus/real/john`, or `--john DIR` for another copy of `run/opencl`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import benchlib

JOHN = benchlib.ROOT / "tests" / "corpus" / "real" / "john"

# John the Ripper (openwall/john, run/opencl): the options `opencl_common.c` passes to
# every build on a CPU device, and each program's own (`HASH_LOOPS`, lengths).
JOHN_BASE = ("-D__CPU__", "-DDEVICE_INFO=1", "-D__SIZEOF_HOST_SIZE_T__=8", "-DDEV_VER_MAJOR=1",
             "-DDEV_VER_MINOR=0", "-D_OPENCL_COMPILER")
JOHN_COMMON = ("-DSALT_LENGTH=64", "-DKEYLEN=32", "-DSALTLEN=64", "-DBINARY_SIZE=32",
               "-DLOOP_COUNT=256", "-DPBKDF2_64_MAX_SALT_SIZE=107")
JOHN_PROGRAMS = {
    "pbkdf2_hmac_sha256_kernel.cl": "-DHASH_LOOPS=512 -DPLAINTEXT_LENGTH=55",
    "pbkdf2_hmac_sha512_kernel.cl": "-DHASH_LOOPS=250 -DPLAINTEXT_LENGTH=110",
    "pbkdf2_hmac_sha1_kernel.cl": "-DHASH_LOOPS=512 -DITERATIONS=1024 -DPLAINTEXT_LENGTH=64 -DOUTLEN=20",
    "7z_kernel.cl": "-DHASH_LOOPS=4096 -DPLAINTEXT_LENGTH=28",
    "rar_kernel.cl": "-DHASH_LOOPS=16384 -DPLAINTEXT_LENGTH=22",
    "zip_kernel.cl": "-DPLAINTEXT_LENGTH=64",
    "agile_kernel.cl": "-DHASH_LOOPS=512 -DITERATIONS=1024 -DPLAINTEXT_LENGTH=64 -DOUTLEN=32",
    "ethereum_kernel.cl": "-DHASH_LOOPS=1024 -DPLAINTEXT_LENGTH=55",
    "pgpdisk_kernel.cl": "-DPLAINTEXT_LENGTH=64",
    "wpapsk_kernel.cl": "-DHASH_LOOPS=512 -DITERATIONS=4096 -DPLAINTEXT_LENGTH=63",
}


def synthetic_header(functions: int = 150) -> str:
    """~3,000 lines: an include guard, device checks the compiler answers, macros calling
    macros and inline functions using them, as crypto headers are written."""
    lines = ["#ifndef SYNTH_COMMON_H", "#define SYNTH_COMMON_H",
             "#if __OPENCL_VERSION__ >= 200 || defined(__clang__)", "#define SYNTH_NEW 1",
             "#else", "#define SYNTH_NEW 0", "#endif",
             "#if __has_builtin(__builtin_expect)", "#define likely(x) __builtin_expect(!!(x), 1)",
             "#else", "#define likely(x) (x)", "#endif",
             "#ifndef ROUNDS", "#define ROUNDS 8", "#endif",
             "#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))",
             "#define MIX(a, b, c) { a += b; c ^= a; c = ROTL(c, 7); }"]
    for n in range(functions):
        lines += [f"#define STEP{n}(a, b) MIX(a, b, t); a ^= ROTL(b, {n % 31 + 1})",
                  f"/* step {n}: one round of the synthetic hash */",
                  f"inline uint synth_f{n}(uint a, uint b) {{",
                  "    uint t = a ^ b;",
                  f"#if ROUNDS > {n % 16}",
                  f"    for (int i = 0; i < ROUNDS; ++i) {{ STEP{n}(a, b); }}",
                  "#else",
                  f"    STEP{n}(a, b);",
                  "#endif",
                  f"    if (likely(a > {n}u)) a += t;",
                  "    return a + b + t;",
                  "}",
                  ""]
        lines += [f"#define SYNTH_K{n}_{i} 0x{(n * 31 + i) * 2654435761 % 2**32:08x}u" for i in range(6)]
        lines += [""]
    lines += ["#endif"]
    return "\n".join(lines) + "\n"


def synthetic_programs(directory: Path, programs: int = 10) -> list[dict]:
    (directory / "synth_common.h").write_text(synthetic_header())
    cases = []
    for p in range(programs):
        source = "\n".join([
            '#include "synth_common.h"',
            f"__kernel void synth_k{p}(__global uint *out, uint seed) {{",
            "    uint g = get_global_id(0);",
            f"    out[g] = synth_f{p}(seed + g, SYNTH_K{p}_0) + synth_f{p + 1}(g, KERNEL_SALT);",
            "}", ""])
        cases.append({"label": f"synth_{p}", "source": source, "entries": [f"synth_k{p}"],
                      "options": ["-I", str(directory), f"-DKERNEL_SALT={p * 7 + 1}u",
                                  f"-DROUNDS={4 + p % 3}"]})
    return cases


def john_programs(directory: Path) -> list[dict]:
    import re
    cases = []
    for name, own in JOHN_PROGRAMS.items():
        path = directory / name
        if not path.exists():
            continue
        source = path.read_text(errors="replace")
        entries = re.findall(r"__kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+(\w+)", source)
        cases.append({"label": name, "source": source, "entries": entries,
                      "options": ["-I", str(directory), *JOHN_BASE, *JOHN_COMMON, *own.split()]})
    return cases


# -- the child: one measurement in a process of its own ---------------------------------

def child(mode: str, cases_file: str, device: str, store: str) -> dict:
    os.environ["CLMODES_CACHE_DIR"] = store
    benchlib.cold_caches()
    if os.environ.get("BENCH_POCL_CACHE"):  # --pocl-cache: PoCL's kernel cache on, in that folder
        os.environ.update(POCL_KERNEL_CACHE="1", POCL_CACHE_DIR=os.environ["BENCH_POCL_CACHE"])
    if mode == "plain-cached":  # pyopencl's own cache on; PoCL's stays off
        os.environ.pop(benchlib.CACHE_VARIABLES[1], None)
    import pyopencl as cl

    import clmodes
    from clmodes import Kernel
    cases = json.loads(Path(cases_file).read_text())
    client = clmodes.client(device)
    if mode in ("plain", "plain-cached"):
        # pyopencl's cache in a fresh folder: a build, then its binary read and written
        cache = {"cache_dir": tempfile.mkdtemp(dir=store)} if mode == "plain-cached" else {}
        ctx = cl.Context([client.device.cl_device])
        started = time.process_time()
        built = {}
        for case in cases:
            program = cl.Program(ctx, case["source"]).build(options=case["options"], **cache)
            names = set(program.get_info(cl.program_info.KERNEL_NAMES).split(";"))
            built[case["label"]] = [e for e in case["entries"] if e in names]
            for entry in built[case["label"]]:  # a scan also finds kernels `#if`ed out
                cl.Kernel(program, entry)
        return {"build_cpu_s": time.process_time() - started, "programs": len(cases),
                "entries": built}
    return batched(client, cases, Kernel)


def batched(client, cases: list[dict], Kernel) -> dict:  # type: ignore[no-untyped-def]
    from clmodes import compiler_probe, programs, server
    from clmodes.batch import preprocess as pre_module
    from clmodes.batch import program as batch_program

    spent = {"plan": 0.0, "probe": 0.0, "build": 0.0, "persist": 0.0}

    def timed(owner, name: str, bucket: str) -> None:  # type: ignore[no-untyped-def]
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[bucket] += time.process_time() - started
        setattr(owner, name, wrapper)

    timed(batch_program, "plan", "plan")  # the server imports it at each flush
    timed(compiler_probe.CompilerProbe, "ask", "probe")
    timed(server, "build_batch", "build")
    timed(programs, "persist", "persist")
    misses_before = pre_module.preprocess.cache_info().misses
    import clmodes
    started = time.process_time()
    kernels = [Kernel(c["source"], e, options=c["options"]) for c in cases for e in c["entries"]]
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_ONLY):
        for kernel in kernels:
            client.server.queue_kernel(kernel)
    client.server.flush()
    obtained = time.process_time() - started
    build = spent["build"]  # capturing for the store may rebuild: that is persistence
    store = clmodes.default_store()
    with store.deferred():  # what `warm()` does at its end: one transaction
        client.server.persist(store, None)
    return {"total_cpu_s": obtained + spent["persist"],
            "prepare_cpu_s": spent["plan"] - spent["probe"],
            "probe_cpu_s": spent["probe"], "build_cpu_s": build,
            "persist_cpu_s": spent["persist"],
            "preprocessed": pre_module.preprocess.cache_info().misses - misses_before,
            "kernels": len(kernels), "programs": len(cases)}


def measure(mode: str, cases_file: Path, device: str, store: str,
            pocl_cache: Path | None = None) -> dict:
    return benchlib.child_json([sys.executable, __file__, "--child", mode, str(cases_file), device,
                                store], f"child {mode}",
                               {**os.environ, "BENCH_POCL_CACHE": str(pocl_cache or "")})


def main(argv: list[str] | None = None) -> int:
    parser = benchlib.parser(__doc__, json_type=Path,
                             smoke_help="three synthetic programs only")
    parser.add_argument("--device", default=os.environ.get("CLMODES_DEVICE", "0"))
    parser.add_argument("--john", type=Path, default=JOHN,
                        help="John the Ripper's run/opencl folder (default: the copy in tests)")
    parser.add_argument("--case", action="append", choices=("synthetic", "john"))
    parser.add_argument("--no-plain", action="store_true", help="skip the plain builds")
    parser.add_argument("--pocl-cache", action="store_true",
                        help="PoCL's kernel cache on (its default), a fresh folder per side: "
                             "clmodes keeps its batches as source records there")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    work = Path(tempfile.mkdtemp(prefix="clmodes-bench-preparation-"))
    wanted = ["synthetic"] if args.smoke else args.case or ["synthetic", "john"]
    results: dict[str, dict] = {}
    for name in wanted:
        cases = synthetic_programs(work, 3 if args.smoke else 10) if name == "synthetic" \
            else john_programs(args.john)
        cases_file = work / f"{name}.json"
        cases_file.write_text(json.dumps(cases))
        store = tempfile.mkdtemp(prefix="store-", dir=work)
        row = {}
        plain_cache, batch_cache = ((work / f"{name}-pocl-plain", work / f"{name}-pocl-batch")
                                    if args.pocl_cache else (None, None))
        if not args.no_plain:  # first: it says which entry points each program has
            row["plain"] = measure("plain", cases_file, args.device, store, plain_cache)
            entries = row["plain"].pop("entries")
            cases_file.write_text(json.dumps([{**c, "entries": entries[c["label"]]} for c in cases]))
            # With PoCL's cache on, "cached" is plain builds again in a new process: PoCL's
            # cache serves them, as it serves a user's second run.
            row["plain_cached"] = measure("plain" if args.pocl_cache else "plain-cached",
                                          cases_file, args.device, store, plain_cache)
            row["plain_cached"].pop("entries")
        row["first"] = measure("batched", cases_file, args.device, store, batch_cache)
        row["second"] = measure("batched", cases_file, args.device, store, batch_cache)
        results[name] = row
        first, second = row["first"], row["second"]
        print(f"{name}: {first['programs']} programs, {first['kernels']} kernels (CPU s)")
        print(f"  {'':8s} {'prepare':>8s} {'probe':>8s} {'build':>8s} {'persist':>8s} "
              f"{'total':>8s} {'units prepared':>15s}")
        for label, r in (("first", first), ("second", second)):
            print(f"  {label:8s} {r['prepare_cpu_s']:8.2f} {r['probe_cpu_s']:8.2f} "
                  f"{r['build_cpu_s']:8.2f} {r['persist_cpu_s']:8.2f} {r['total_cpu_s']:8.2f} "
                  f"{r['preprocessed']:15d}")
        if "plain" in row:
            plain, cached = row["plain"]["build_cpu_s"], row["plain_cached"]["build_cpu_s"]
            print(f"  {'plain':8s} {'':8s} {'':8s} {plain:8.2f} {'':8s} {plain:8.2f}")
            said = ("plain again, a new process: PoCL's kernel cache serves it" if args.pocl_cache
                    else "plain through pyopencl's disk cache: build + binary read")
            print(f"  {'cached':8s} {'':8s} {'':8s} {'':8s} {'':8s} {cached:8.2f}   ({said})")
            row["ratios"] = {"plain_over_batch": plain / first["total_cpu_s"],
                             "plain_cached_over_batch": cached / first["total_cpu_s"],
                             "limit_over_batch": first["build_cpu_s"] / first["total_cpu_s"]}
            if first["prepare_cpu_s"] >= 0.05:  # below it, nothing was prepared to compare
                row["ratios"]["second_prepare_over_first"] = \
                    second["prepare_cpu_s"] / first["prepare_cpu_s"]
            print("  " + ", ".join(f"{k} {v:.2f}" for k, v in row["ratios"].items()))
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
