"""The import's load check: every binary about to be imported is loaded, for this
machine's device, in a child process first.

Why a child: a program binary is handed to the OpenCL driver, and a driver is not
written for hostile input. PoCL dies with SIGSEGV on a truncated binary whose checksum
matches, a kernel count of 1000 or a huge length field; imported unchecked, such an entry
kills *every later run* of the application, in the application's process. Here it kills
a child that exists for that purpose: the entry it was loading is refused (with the
signal), a fresh child goes on with the rest, and the other entries import.

It also loads every shared object a PoCL binary carries (`unpack_shared_objects`): PoCL
loads one only when a launch runs, so a constructor in one that crashes would otherwise
pass the check and crash a later run (seen: with `POCL_WORK_GROUP_SPECIALIZATION=0`).

What it is not: a sandbox. A binary that loads cleanly and misbehaves later (a shared
object whose constructor does harm without crashing, kernel code that does) is the
signer's responsibility: the trust policy (`clmodes.bundle.trust`: binaries only from
trusted signers) decides whose code runs, not this check.

The child (`clmodes/bundle/load_child.py`, run as a script) loads as a run does
(`clmodes.programs.load`): program from the binary, built for the one device it was made
for, and every kernel the bundle indexes to it created by name. It prints one line as it
starts each entry and one as it ends it, so the parent knows which entry a crash or a
hang belongs to. Starting it costs most of the check, so it imports pyopencl and nothing
of clmodes (`import clmodes` alone would double the child's start; the check's cost is
measured by ci/bench/bench_bundle_import.py) and finds its
device by platform and device index, checked by name, instead of by fingerprint.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pyopencl as cl

from clmodes.bundle.poclbin import MAGIC as POCL_MAGIC
from clmodes.bundle.poclbin import files as pocl_files
from clmodes.kernel import unit_suffix
from clmodes.store import BinaryRow, KernelRow

STARTUP_SECONDS = 60.0  # interpreter, pyopencl and platform discovery, on a loaded machine
ENTRY_SECONDS = 30.0  # one binary built and its kernels created


@dataclasses.dataclass(frozen=True)
class Job:
    """One binary to load, and per kernel indexed to it the entry names it may have (a
    kernel is renamed inside a batch by its unit's suffix, `clmodes.kernel.unit_suffix`,
    and a row names the kernel, not its unit, so each of the binary's units is tried; a
    binary built alone keeps the plain name) and the number of arguments its row's
    argument info describes (None: none kept), which one of them must take."""

    exact: str
    batch: str
    kernels: tuple[tuple[tuple[str, ...], int | None], ...]
    shared_objects: tuple[str, ...] = ()  # a PoCL binary's, unpacked beside it

    @property
    def key(self) -> tuple[str, str]:
        return (self.exact, self.batch)


def jobs_for(binaries: list[BinaryRow], kernels: list[KernelRow]) -> list[Job]:
    rows: dict[tuple[str, str], set[tuple[str, int | None]]] = {}
    for kernel in kernels:
        args = json.loads(kernel.args)  # validated: None or a list of rows
        rows.setdefault((kernel.exact, kernel.batch), set()).add(
            (kernel.name, None if args is None else len(args)))
    jobs = []
    for row in binaries:
        units = json.loads(row.units)  # validated: a list of strings
        entries = tuple(((name, *(name + unit_suffix(u) for u in units)), arguments)
                        for name, arguments in sorted(rows.get((row.exact, row.batch), ()),
                                                      key=lambda r: (r[0], r[1] or 0)))
        jobs.append(Job(row.exact, row.batch, entries))
    return jobs


CHILD = Path(__file__).with_name("load_child.py")
# Run by path without its folder on sys.path (its neighbours are not top-level modules),
# from the private temporary folder (nothing of the user's working directory on it).
BOOT = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


def locate(device: cl.Device) -> dict[str, object]:
    """Where the child finds `device`: indices, and the names that must match there."""
    platforms = cl.get_platforms()
    platform = next(p for p in platforms if p == device.platform)
    return {"platform": platforms.index(platform), "device": platform.get_devices().index(device),
            "platform_name": platform.name, "device_name": device.name}


def check_loads(binaries: list[BinaryRow], kernels: list[KernelRow],
                devices: dict[str, cl.Device]) -> dict[tuple[str, str], str]:
    """(exact, batch) -> why it is refused, for each binary that crashes, hangs or fails
    to load in a child process on `devices[exact]`; the others load."""
    if not binaries:
        return {}
    jobs = jobs_for(binaries, kernels)
    places = {exact: locate(device) for exact, device in devices.items()}
    refused: dict[tuple[str, str], str] = {}
    with tempfile.TemporaryDirectory(prefix="clmodes-load-") as folder:
        for number, row in enumerate(binaries):
            (Path(folder) / f"{number}.bin").write_bytes(row.binary)
            jobs[number] = dataclasses.replace(
                jobs[number], shared_objects=unpack_shared_objects(Path(folder), number, row.binary))
        remaining = list(range(len(jobs)))
        while remaining:
            done, blamed = run_child(Path(folder), jobs, remaining, places)
            refused.update({jobs[n].key: reason for n, reason in done.items() if reason})
            if blamed is not None:
                refused[jobs[blamed[0]].key] = blamed[1]
            finished = set(done) | ({blamed[0]} if blamed else set())
            if not finished:  # never seen; refusing is the safe side of a checker failure
                refused.update({jobs[n].key: "the load check did not reach it" for n in remaining})
                break
            remaining = [n for n in remaining if n not in finished]
    return refused


def unpack_shared_objects(folder: Path, number: int, binary: bytes) -> tuple[str, ...]:
    """The shared objects a PoCL binary carries, written out for the child to load: PoCL
    unpacks them into its cache and loads the one of a launch's work-group size only
    when it runs (from a shipped one if there is one, else from one it builds), so
    building the program never runs their constructors; the child loads every one of
    them, as a later run might, and a constructor that crashes crashes the child."""
    if not binary.startswith(POCL_MAGIC):
        return ()
    names = []
    for index, stored in enumerate(f for f in pocl_files(binary) if f.path.endswith(b".so")):
        name = f"{number}-{index}.so"
        (folder / name).write_bytes(binary[stored.start:stored.end])
        names.append(name)
    return tuple(names)


def run_child(folder: Path, jobs: list[Job], numbers: list[int],
              places: dict[str, dict[str, object]]) -> tuple[dict[int, str], tuple[int, str] | None]:
    """Run one child over `numbers`: what it finished (number -> refusal, "" if loaded),
    and the entry it crashed or hung on (with why), if it did."""
    plan = folder / "plan.json"
    plan.write_text(json.dumps([{"number": n, **places[jobs[n].exact],
                                 "kernels": list(jobs[n].kernels),
                                 "shared_objects": list(jobs[n].shared_objects)} for n in numbers]))
    timeout = STARTUP_SECONDS + ENTRY_SECONDS * len(numbers)
    try:
        out = subprocess.run([sys.executable, "-c", BOOT, str(CHILD), str(folder)],
                             capture_output=True, text=True, timeout=timeout, cwd=folder,
                             env={**os.environ, "POCL_CACHE_DIR": str(folder / "pocl-cache")})
        stdout, status, hung = out.stdout, out.returncode, False
    except subprocess.TimeoutExpired as expired:
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        status, hung = None, True
    done: dict[int, str] = {}
    started = None
    if not hung and status != 0 and not stdout.startswith("start"):
        # It died before its first entry: the check could not run, whatever the entries.
        return {n: f"the load check could not run ({describe_status(status)})" for n in numbers}, None
    for line in stdout.splitlines():
        word, _, rest = line.partition(" ")
        number, _, reason = rest.partition(" ")
        if word == "start" and number.isdigit():
            started = int(number)
        elif word in ("ok", "fail") and number.isdigit():
            done[int(number)] = "" if word == "ok" else f"failed to load ({reason})"
            started = None
    if started is None and not hung and status == 0:
        return done, None
    why = (f"hung the OpenCL loader (more than {ENTRY_SECONDS:g} s)" if hung
           else f"crashed the OpenCL loader ({describe_status(status)})")
    if started is None:
        started = next((n for n in numbers if n not in done), None)
        if started is None:
            return done, None
    return done, (started, why)


def describe_status(status: int | None) -> str:
    if status is not None and status < 0:
        try:
            return signal.Signals(-status).name
        except ValueError:
            return f"signal {-status}"
    return f"exit status {status}"
