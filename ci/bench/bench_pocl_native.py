#!/usr/bin/env python
"""What dropping PoCL's native shared objects from an imported binary would cost, against
what checking them at import costs: the two ways to keep a tampered shared object from
breaking later runs (`clmodes.bundle.loading`).

    python ci/bench/bench_pocl_native.py [--kernels 8] [--reps 3] [--device SUBSTRING]
                                         [--json OUT] [--smoke]

Per PoCL device here (PyPI's 3.0, Debian's 3.1; --device narrows them), once: a program
of --kernels kernels (loops of arithmetic, like small BLAS bodies) built from source,
each launched at the sizes used below (so the capture holds their work-group-specialized
shared objects, as a warmed store's does), its binary captured. Then per rep:

- regeneration: per form (rotated), a fresh process with a fresh PoCL cache builds the
  program from the binary as captured, or with every kernel's files removed (only
  `/program.bc` left, which PoCL regenerates them from), and launches each kernel once,
  timing the build and the launches; under PoCL's default and, in processes of their
  own, with `POCL_WORK_GROUP_SPECIALIZATION=0`. `extra_s_per_kernel`: what a later
  process pays per kernel if no native code is shipped.
- the load check: a fresh process with a fresh PoCL cache builds the captured binary and
  runs the load child's own steps (`clmodes/bundle/load_child.py`) on it, timed apart:
  `dlopen` and symbol of every shared object, the launch at each shipped specialized
  shape, then the generic launches. `check_s_per_kernel`: what the import pays per
  kernel on top of loading the binary.
"""

from __future__ import annotations

import json
import statistics
import struct
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
CHECK = r"""
import json, os, sys, time, runpy
from pathlib import Path
import pyopencl as cl
child = runpy.run_path(sys.argv[1])  # the load check's child, its functions
folder = Path(sys.argv[2])
spec = json.loads((folder / "check.json").read_text())
platform = [p for p in cl.get_platforms() if p.version == spec["platform"]][0]
device = platform.get_devices()[0]
context = cl.Context([device]); queue = cl.CommandQueue(context)
program = cl.Program(context, [device], [(folder / "0.bin").read_bytes()]).build()
kinds = {name: spec["kinds"] for name in spec["names"]}
objects = spec["shared_objects"]
started = time.perf_counter()
for shared in objects:
    child["resolve"](folder, shared)
resolved = time.perf_counter()
special = [child["launch"](program, context, queue, s["kernel"], kinds, s["launch"]["local"],
                           None if s["launch"]["offset_zero"] else (1,))
           for s in objects if s["launch"] is not None]
specialized = time.perf_counter()
os.environ[child["GENERIC_VARIABLE"]] = "0"
generic = [child["launch"](program, context, queue, s["kernel"], kinds, None, None)
           for s in objects if s["generic"]]
done = time.perf_counter()
print(json.dumps({"resolve_s": resolved - started, "specialized_launches_s": specialized - resolved,
                  "generic_launches_s": done - specialized, "launched": sum(special) + sum(generic),
                  "launches": len(special) + len(generic)}))
"""
KINDS = [["float*", True, True]] * 3 + [["int", False, True]]  # KERNEL's, as clmodes keeps them
VARIANTS = {"default": None, "generic": "0"}


def pocl_devices(wanted: str | None) -> list:
    return [d.cl_device for d in benchlib.usable_devices("PoCL")
            if wanted is None or wanted in d.label + d.fingerprint.exact]


def capture(device, count: int) -> tuple[bytes, list[str], str]:
    import numpy as np
    import pyopencl as cl

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


def run(path: Path, names: list[str], folder: Path, platform: str, variant: str | None) -> dict:
    with tempfile.TemporaryDirectory(dir=folder) as cache:
        extra = {} if variant is None else {"POCL_WORK_GROUP_SPECIALIZATION": variant}
        return benchlib.child_json(
            benchlib.python(RUN, path, ",".join(names), platform), "bench_pocl_native: a run",
            benchlib.child_env(drop=["POCL_WORK_GROUP_SPECIALIZATION"], POCL_CACHE_DIR=cache,
                               **extra))


def check(binary: bytes, names: list[str], folder: Path, platform: str) -> dict:
    """The load child's per-kernel steps on the captured binary, in a fresh process."""
    from clmodes.bundle import loading

    with tempfile.TemporaryDirectory(dir=folder) as work:
        (Path(work) / "0.bin").write_bytes(binary)
        objects = loading.unpack_shared_objects(Path(work), 0, binary)
        (Path(work) / "check.json").write_text(json.dumps(
            {"platform": platform, "names": names, "kinds": KINDS, "shared_objects": list(objects)}))
        found = benchlib.child_json(
            benchlib.python(CHECK, loading.CHILD, work), "bench_pocl_native: the check",
            benchlib.child_env(drop=["POCL_WORK_GROUP_SPECIALIZATION"],
                               POCL_CACHE_DIR=str(Path(work) / "cache")))
    if found["launched"] != found["launches"]:
        raise SystemExit(f"bench_pocl_native: {found['launches'] - found['launched']} check launches skipped")
    return found


def measure(device, options, folder: Path) -> dict:
    binary, names, platform = capture(device, options.kernels)
    forms = {"captured": binary, "bitcode only": without_native(binary)}
    paths = {}
    for name, data in forms.items():
        paths[name] = folder / f"{name.replace(' ', '-')}.bin"
        paths[name].write_bytes(data)
    samples: dict[tuple[str, str], list[dict]] = {(v, f): [] for v in VARIANTS for f in forms}
    checks: list[dict] = []
    for rep in range(options.reps):
        for variant in benchlib.rotated(list(VARIANTS), rep):
            for name in benchlib.rotated(list(forms), rep):
                samples[(variant, name)].append(run(paths[name], names, folder, platform, VARIANTS[variant]))
        checks.append(check(binary, names, folder, platform))
    results: dict = {"device": f"{device.platform.name} {device.driver_version}", "kernels": options.kernels}
    for variant in VARIANTS:
        figures: dict = {}
        for name in forms:
            runs = samples[(variant, name)]
            figures[name] = {key: round(statistics.median(r[key] for r in runs), 4) for key in runs[0]}
        extra = figures["bitcode only"]["launches_s"] - figures["captured"]["launches_s"]
        figures["extra_s_per_kernel"] = round(extra / options.kernels, 4)
        figures["bitcode_only_over_captured"] = round(
            figures["bitcode only"]["launches_s"] / max(figures["captured"]["launches_s"], 1e-9), 2)
        results[variant] = figures
    per = {key: round(statistics.median(c[key] for c in checks) / options.kernels, 5)
           for key in ("resolve_s", "specialized_launches_s", "generic_launches_s")}
    results["check_per_kernel"] = per
    results["check_s_per_kernel"] = round(sum(per.values()), 5)
    results["regeneration_over_check"] = round(
        results["default"]["extra_s_per_kernel"] / max(results["check_s_per_kernel"], 1e-9), 1)
    results["bytes"] = {name: len(data) for name, data in forms.items()}
    print(f"{results['device']}: regenerating native code costs a later process "
          f"{results['default']['extra_s_per_kernel'] * 1e3:.1f} ms per kernel "
          f"({results['generic']['extra_s_per_kernel'] * 1e3:.1f} ms under the generic variant); "
          f"checking it at import {results['check_s_per_kernel'] * 1e3:.2f} ms per kernel "
          f"(dlopen+symbol {per['resolve_s'] * 1e3:.2f}, specialized launch "
          f"{per['specialized_launches_s'] * 1e3:.2f}, generic launch {per['generic_launches_s'] * 1e3:.2f})",
          flush=True)
    return results


def main() -> None:
    parser = benchlib.parser(__doc__, reps=3, json_type=Path,
                             smoke_help="2 kernels, 1 rep (ci/bench/run --smoke)")
    parser.add_argument("--kernels", type=int, default=8)
    parser.add_argument("--device", help="only PoCL devices whose label or fingerprint holds this")
    options = parser.parse_args()
    if options.smoke:
        options.kernels, options.reps = 2, 1
    sys.path.insert(0, str(benchlib.ROOT))
    folder = Path(tempfile.mkdtemp(prefix="clmodes-pocl-native-"))
    devices = pocl_devices(options.device)
    if not devices:
        raise SystemExit("bench_pocl_native: no usable PoCL device here")
    results = {"load_1min": benchlib.loadavg_1min(),
               "devices": [measure(device, options, folder) for device in devices]}
    results["load_1min_after"] = benchlib.loadavg_1min()
    print(json.dumps(results))
    benchlib.write_json(options.json, results)


if __name__ == "__main__":
    main()
