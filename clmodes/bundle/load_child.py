"""The child of the import's load check (`clmodes.bundle.loading`), run as a script.

It imports pyopencl and nothing of clmodes: its start is most of what the check costs.
Input: a folder with `plan.json` and `<number>.bin`. The plan is a list of steps, each
with its step index, its entry's number, whether it is a `generic` step, the platform
and device index and their names, the entry names of its kernels and their argument
counts, per entry name its arguments' kinds (`[type, pointer, resolved]`, or None), and
the shared objects it carries (file, kernel, directory, the symbols PoCL resolves, and
the launch that loads it). Output, one line each, flushed before the next step:
`start S`, then `ok S` or `fail S <why>`. A crash leaves `start S` last, which tells the
parent whose it was.

A step loads its binary as a run does, `dlopen`s each shared object it ships and
resolves its work-group symbol, and launches each kernel once at each shipped
specialized shape; a generic step sets `POCL_WORK_GROUP_SPECIALIZATION=0` (PoCL reads
it at each launch) and launches each kernel that ships a generic work-group function
once. A check launch's arguments are made up, so it must be harmless on nonsense: see
`arguments`.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import sys
from pathlib import Path

import pyopencl as cl

GENERIC_VARIABLE = "POCL_WORK_GROUP_SPECIALIZATION"
GUARD = 256 * 1024  # bytes of zeros on each side of a pointer argument's buffer
CORE = 256 * 1024  # bytes of the buffer a pointer argument gets
LOCAL_MAX = 64 * 1024  # bytes of local memory a local pointer gets, at most
SCALARS = {"char": 1, "uchar": 1, "bool": 1, "short": 2, "ushort": 2, "half": 2, "int": 4,
           "uint": 4, "float": 4, "long": 8, "ulong": 8, "double": 8}
FLOATS = {"half": "<e", "float": "<f", "double": "<d"}
OPAQUE = ("image", "pipe", "queue_t", "event_t")  # memory objects no buffer stands for


def find_device(job: dict) -> cl.Device | None:
    platforms = cl.get_platforms()
    if not 0 <= job["platform"] < len(platforms):
        return None
    platform = platforms[job["platform"]]
    found = platform.get_devices()
    if platform.name != job["platform_name"] or not 0 <= job["device"] < len(found):
        return None
    device = found[job["device"]]
    return device if device.name == job["device_name"] else None


def create_kernel(program: cl.Program, entries: list[str], arguments: int | None) -> None:
    """The kernel under one of its possible entry names that the program has, taking
    `arguments` arguments when its row says how many (a launch indexes its argument
    info by position)."""
    taken = []
    for entry in entries:
        try:
            taken.append(int(cl.Kernel(program, entry).num_args))
        except cl.Error:
            continue
    if not taken:
        raise LookupError(f"the binary holds no kernel {entries[0]!r}")
    if arguments is not None and arguments not in taken:
        raise LookupError(f"kernel {entries[0]!r} takes {' or '.join(map(str, taken))} "
                          f"arguments; its argument info describes {arguments}")


class Loaded:
    """What a child holds per entry: the program it built (a generic step reuses it) and
    the context and queue of its device."""

    def __init__(self) -> None:
        self.contexts: dict[int, tuple[cl.Context, cl.CommandQueue]] = {}
        self.programs: dict[int, cl.Program] = {}

    def program(self, folder: Path, job: dict) -> tuple[cl.Program, cl.Context, cl.CommandQueue]:
        device = find_device(job)
        if device is None:
            raise LookupError("its device is not where the parent saw it")
        key = job["platform"] * 1000 + job["device"]
        if key not in self.contexts:
            context = cl.Context([device])
            self.contexts[key] = (context, cl.CommandQueue(context))
        context, queue = self.contexts[key]
        if job["number"] not in self.programs:
            program = cl.Program(context, [device], [(folder / f"{job['number']}.bin").read_bytes()])
            program.build(devices=[device])
            self.programs[job["number"]] = program
        return self.programs[job["number"]], context, queue


def load(folder: Path, job: dict, loaded: Loaded) -> None:
    program, context, queue = loaded.program(folder, job)
    for entries, arguments in job["kernels"]:
        create_kernel(program, entries, arguments)
    for shared in job["shared_objects"]:
        resolve(folder, shared)
    for shared in job["shared_objects"]:
        if shared["launch"] is not None:
            shape = shared["launch"]
            offset = None if shape["offset_zero"] else (1,)
            launch(program, context, queue, shared["kernel"], job["arguments"], shape["local"], offset)


def resolve(folder: Path, shared: dict) -> None:
    """Its constructors run here, not in a later run first; and the work-group symbol
    PoCL resolves must be there (PoCL aborts the run that misses it)."""
    try:
        library = ctypes.CDLL(str(folder / shared["file"]), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError as error:
        raise LookupError(f"a shared object it carries does not load ({error})") from error
    if not any(hasattr(library, symbol) for symbol in shared["symbols"]):
        raise LookupError(f"kernel {shared['kernel']!r}'s shared object for {shared['directory']} "
                          f"lacks its work-group function {shared['symbols'][0]}")


def launch_generic(folder: Path, job: dict, loaded: Loaded) -> None:
    os.environ[GENERIC_VARIABLE] = "0"
    program, context, queue = loaded.program(folder, job)
    for shared in job["shared_objects"]:
        if shared["generic"]:
            launch(program, context, queue, shared["kernel"], job["arguments"], None, None)


def launch(program: cl.Program, context: cl.Context, queue: cl.CommandQueue, name: str,
           kinds: dict, local: list[int] | None, offset: tuple[int, ...] | None) -> bool:
    """One work-group of kernel `name` (local: the shipped shape's, or for a generic
    launch the kernel's required one, else 1); whether it ran. A launch the runtime
    refuses with an error is skipped: only a crash is the binary's (the parent sees it)."""
    kernel = cl.Kernel(program, name)
    device = context.devices[0]
    if local is None:
        required = kernel.get_work_group_info(cl.kernel_work_group_info.COMPILE_WORK_GROUP_SIZE, device)
        local = [int(n) or 1 for n in required]
    dims = 3 if local[2] > 1 else 2 if local[1] > 1 else 1
    held = arguments(kernel, context, kinds.get(name, None))
    if held is None:
        return False
    try:
        cl.enqueue_nd_range_kernel(queue, kernel, tuple(local[:dims]), tuple(local[:dims]),
                                   global_work_offset=None if offset is None else offset * dims).wait()
    except cl.Error:
        return False
    return True


def arguments(kernel: cl.Kernel, context: cl.Context, kinds: list | None) -> list | None:
    """Every argument of `kernel` set, or None where one cannot be made. A pointer gets
    the middle of a zeroed buffer (an index made of nonsense scalars stays inside memory
    the child owns) or, where PoCL refuses a buffer, local memory; a scalar gets 1 in each
    component (0 would divide by zero, or loop forever as a step). An image, a sampler,
    a struct, a typedef not resolved: nothing to make, no launch."""
    count = int(kernel.num_args)
    if kinds is None:
        return [] if count == 0 else None
    if len(kinds) != count:
        return None
    held: list = []
    pointers = max(1, sum(1 for _, pointer, _ in kinds if pointer))
    local_bytes = min(LOCAL_MAX, int(context.devices[0].local_mem_size) // (2 * pointers))
    for index, (type_name, pointer, resolved) in enumerate(kinds):
        if not resolved or (pointer and any(word in type_name for word in OPAQUE)):
            return None
        try:
            held.append(pointer_argument(kernel, context, index, local_bytes) if pointer
                        else scalar_argument(kernel, index, type_name))
        except (cl.Error, LookupError):
            return None
    return held


def pointer_argument(kernel: cl.Kernel, context: cl.Context, index: int, local_bytes: int) -> object:
    whole = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                      hostbuf=bytearray(2 * GUARD + CORE))
    middle = whole.get_sub_region(GUARD, CORE)
    try:
        kernel.set_arg(index, middle)
    except cl.Error:
        local = cl.LocalMemory(local_bytes)
        kernel.set_arg(index, local)
        return local
    return (whole, middle)


def scalar_argument(kernel: cl.Kernel, index: int, type_name: str) -> bytes:
    words = type_name.replace("const", "").replace("volatile", "").split()
    name = "u" + words[-1] if words[:1] == ["unsigned"] and len(words) == 2 else "".join(words)
    base = name.rstrip("0123456789")
    width = int(name[len(base):] or 1)
    if base not in SCALARS or width not in (1, 2, 3, 4, 8, 16):
        raise LookupError(type_name)
    one = (struct.pack(FLOATS[base], 1.0) if base in FLOATS
           else (1).to_bytes(SCALARS[base], "little"))
    value = one * (4 if width == 3 else width)
    kernel.set_arg(index, value)
    return value


def main(folder: Path) -> int:
    loaded = Loaded()
    for job in json.loads((folder / "plan.json").read_text()):
        print(f"start {job['step']}", flush=True)
        try:
            (launch_generic if job["generic"] else load)(folder, job, loaded)
        except Exception as error:  # noqa: BLE001 - any failure refuses the entry, by name
            text = " ".join(str(error).split())[:200] or type(error).__name__
            print(f"fail {job['step']} {text}", flush=True)
            continue
        print(f"ok {job['step']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[-1])))
