#!/usr/bin/env python
"""What dropping PoCL's native shared objects from an imported binary would cost: the
first launch of each kernel, from a binary as captured and from the same binary with
every kernel's files removed (only `/program.bc` left, which PoCL regenerates them from).

    python ci/bench/bench_pocl_native.py [--kernels 8] [--reps 3] [--json OUT] [--smoke]

Once, on PoCL: a program of --kernels kernels (loops of arithmetic, like small BLAS
bodies) built from source, each launched at the sizes used below (so the capture holds
their work-group-specialized shared objects, as a warmed store's does), its binary
captured. Then per rep, per form (rotated), a fresh process with a fresh PoCL cache
builds the program from the binary and launches each kernel once, timing the build and
the launches. Run with `POCL_WORK_GROUP_SPECIALIZATION=0` in the environment to measure
the generic shared objects instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import benchlib  # noqa: E402

KERNEL = """
__kernel void k{n}(__global float *out, __global const float *a, __global const float *b, int m) {{
    int i = get_global_id(0);
    float acc = 0.0f;
    for (int j = 0; j < m; ++j) {{
        float x = a[(i + j * {n}) % 4096], y = b[(i * 3 + j) % 4096];
        acc += x * y + sin(x) * cos(y) / (1.0f + fabs(x - y));
    }}
    out[i] = acc;
}}
"""
GLOBAL, LOCAL = (4096,), (64,)
RUN = r"""
import json, sys, time, numpy as np, pyopencl as cl
platform = [p for p in cl.get_platforms() if p.version == sys.argv[3]][0]
device = platform.get_devices()[0]
context = cl.Context([device]); queue = cl.CommandQueue(context)
binary = open(sys.argv[1], "rb").read()
names = sys.argv[2].split(",")
bufs = [cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 4096) for _ in range(3)]
started = time.perf_counter()
program = cl.Program(context, [device], [binary]).build()
built = time.perf_counter()
for name in names:
    kernel = cl.Kernel(program, name)
    kernel.set_args(bufs[0], bufs[1], bufs[2], np.int32(16))
    cl.enqueue_nd_range_kernel(queue, kernel, (4096,), (64,)).wait()
done = time.perf_counter()
print(json.dumps({"build_s": built - started, "launches_s": done - built}))
"""


def capture(count: int) -> tuple[bytes, list[str], str]:
    import numpy as np
    import pyopencl as cl

    import clmodes

    device = next(d.cl_device for d in clmodes.devices()  # the first PoCL here that builds
                  if d.fingerprint.vendor == "PoCL" and clmodes.usability(d).usable)
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    names = [f"k{n}" for n in range(count)]
    program = cl.Program(context, "".join(KERNEL.format(n=n) for n in range(count))).build()
    bufs = [cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 4096) for _ in range(3)]
    for name in names:
        kernel = cl.Kernel(program, name)
        kernel.set_args(bufs[0], bufs[1], bufs[2], np.int32(16))
        cl.enqueue_nd_range_kernel(queue, kernel, GLOBAL, LOCAL).wait()
    return bytes(program.get_info(cl.program_info.BINARIES)[0]), names, device.platform.version


def without_native(binary: bytes) -> bytes:
    """The binary with every kernel record's files removed (sizes fixed)."""
    from clmodes.bundle import poclbin

    start = binary.find(struct.pack("<I", len(poclbin.PROGRAM_PATH)) + poclbin.PROGRAM_PATH,
                        0, poclbin.HEADER_MAX)
    _, offset = poclbin.read_file(binary, start)
    (kernels,) = struct.unpack_from("<I", binary, poclbin.KERNEL_COUNT_AT)
    out = bytearray(binary[:offset])
    for _ in range(kernels):
        size, files_size, _ = struct.unpack_from("<QQI", binary, offset)
        head = bytearray(binary[offset:offset + size - files_size])
        struct.pack_into("<QQ", head, 0, len(head), 0)
        out += head
        offset += size
    return bytes(out)


def run(path: Path, names: list[str], folder: Path, platform: str) -> dict:
    with tempfile.TemporaryDirectory(dir=folder) as cache:
        out = subprocess.run([sys.executable, "-c", RUN, str(path), ",".join(names), platform],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "POCL_CACHE_DIR": cache})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--smoke", action="store_true", help="2 kernels, 1 rep (ci/bench/run --smoke)")
    options = parser.parse_args()
    if options.smoke:
        options.kernels, options.reps = 2, 1
    sys.path.insert(0, str(benchlib.ROOT))
    folder = Path(tempfile.mkdtemp(prefix="clmodes-pocl-native-"))
    binary, names, platform = capture(options.kernels)
    forms = {"captured": binary, "bitcode only": without_native(binary)}
    paths = {}
    for name, data in forms.items():
        paths[name] = folder / f"{name.replace(' ', '-')}.bin"
        paths[name].write_bytes(data)
    samples: dict[str, list[dict]] = {name: [] for name in forms}
    for rep in range(options.reps):
        order = list(forms) if rep % 2 == 0 else list(reversed(forms))
        for name in order:
            samples[name].append(run(paths[name], names, folder, platform))
    results = {"kernels": options.kernels, "load_1min": os.getloadavg()[0],
               "specialization": os.environ.get("POCL_WORK_GROUP_SPECIALIZATION", "default")}
    for name, runs in samples.items():
        results[name] = {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]}
        results[name]["bytes"] = len(forms[name])
        print(f"{name:13s} {len(forms[name]):9d} bytes  build {results[name]['build_s']:.3f} s  "
              f"first launches {results[name]['launches_s']:.3f} s", flush=True)
    extra = results["bitcode only"]["launches_s"] - results["captured"]["launches_s"]
    results["extra_s_per_kernel"] = round(extra / options.kernels, 3)
    results["bitcode_only_over_captured"] = round(
        results["bitcode only"]["launches_s"] / max(results["captured"]["launches_s"], 1e-9), 2)
    print(f"dropping the shared objects: +{extra:.3f} s over {options.kernels} first launches "
          f"({results['extra_s_per_kernel']:.3f} s per kernel)")
    print(json.dumps(results))
    if options.json:
        options.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
