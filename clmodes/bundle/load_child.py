"""The child of the import's load check (`clmodes.bundle.loading`), run as a script.

It imports pyopencl and nothing of clmodes: its start is most of what the check costs.
Input: a folder with `plan.json` (per entry: its number, the platform and device index
and their names, the entry names of its kernels and their argument counts, the shared
objects it carries) and `<number>.bin`. Output, one line
each, flushed before the next step: `start N`, then `ok N` or `fail N <why>`. A crash
leaves `start N` last, which tells the parent whose it was.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path

import pyopencl as cl


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


def load(folder: Path, job: dict, contexts: dict[int, cl.Context]) -> None:
    device = find_device(job)
    if device is None:
        raise LookupError("its device is not where the parent saw it")
    key = job["platform"] * 1000 + job["device"]
    context = contexts.get(key) or cl.Context([device])
    contexts[key] = context
    program = cl.Program(context, [device], [(folder / f"{job['number']}.bin").read_bytes()])
    program.build(devices=[device])
    for entries, arguments in job["kernels"]:
        create_kernel(program, entries, arguments)
    for name in job["shared_objects"]:  # their constructors run here, not in a later run first
        try:
            ctypes.CDLL(str(folder / name), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError as error:
            raise LookupError(f"a shared object it carries does not load ({error})") from error


def main(folder: Path) -> int:
    contexts: dict[int, cl.Context] = {}
    for job in json.loads((folder / "plan.json").read_text()):
        print(f"start {job['number']}", flush=True)
        try:
            load(folder, job, contexts)
        except Exception as error:  # noqa: BLE001 - any failure refuses the entry, by name
            text = " ".join(str(error).split())[:200] or type(error).__name__
            print(f"fail {job['number']} {text}", flush=True)
            continue
        print(f"ok {job['number']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[-1])))
