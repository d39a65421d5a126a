"""The import's load check: every binary about to be imported is loaded, for this
machine's device, in a child process first.

Why a child: a program binary is handed to the OpenCL driver, and a driver is not
written for hostile input. PoCL dies with SIGSEGV on a truncated binary whose checksum
matches, a kernel count of 1000 or a huge length field; imported unchecked, such an entry
kills *every later run* of the application, in the application's process. Here it kills
a child that exists for that purpose: the entry it was loading is refused (with the
signal), a fresh child goes on with the rest, and the other entries import.

It also runs every kernel a PoCL binary ships native code for, once, as a later run
would (`Step`, `unpack_shared_objects`). PoCL keeps each kernel's work-group function in a shared
object and loads one only when a launch runs, the one of that launch's specialization
or, under `POCL_WORK_GROUP_SPECIALIZATION=0`, the generic `0-0-0` one; building the
program never touches them. Seen: a signed binary whose generic shared object lacked
its work-group symbol passed a check that only `dlopen`ed it, then aborted every later
run under the generic variant (rc 134, after its constructor ran). So the child
`dlopen`s each shipped shared object and resolves the symbol PoCL resolves (the shapes
no small launch reaches), launches each kernel once at each shipped specialized shape
(one work-group), and then, in a step of its own with the variable set, once more under
the generic variant: PoCL reads the variable at a launch, but in a process that has set
it, unsetting it did not bring specialization back (3.0 and 3.1), so the generic steps
of a child come after all its default ones (`steps_for`). Only shipped shapes are
launched: any other one would make PoCL generate code from the bitcode (tens of ms a
kernel) and check nothing shipped.

Why launch rather than ship no native code (measured by the former
ci/bench/bench_pocl_native.py at commit 2fb9fda, docs/decisions/bundle-load-check.md: 8 small loop kernels, 3 reps, the 2-core machine at load ~1.9): the check costs ~3 ms a
kernel on PoCL 3.0 and ~6 ms on 3.1 (dlopen and symbol 0.3 ms, the specialized launch
2-4 ms, the generic one 0.6-1.4 ms; no second child, the generic step reuses the
program its load built); regenerating a kernel's code from the bitcode would cost a
later process 96 ms (3.0) and 189 ms (3.1) a kernel, 166 and 286 ms under the generic
variant, per specialization, in every fresh PoCL cache: what shipping binaries exists
to save. The trap of a launch is its arguments: the child knows only each argument's
declared type and whether it is a pointer (the kernel rows' `clmodes.arginfo`; PoCL
reports no argument info for a program built from a binary), so a pointer gets a zeroed
buffer in the middle of a larger one (a nonsense index stays inside memory it owns) or, where PoCL refuses that, local memory; a scalar gets
1, never 0 (an integer division by zero traps on x86; a zero step loops forever). A
kernel whose arguments it cannot make (an image, a struct, no rows) is not launched, and
a launch the runtime refuses with an error is not a refusal: only a crash or a hang is,
as for a load. Intel's runtime ships no shared objects: nothing is launched there.

What it is not: a sandbox. A binary that loads cleanly and misbehaves later (a shared
object whose constructor does harm without crashing, kernel code that does) is the
signer's responsibility: the trust policy (`clmodes.bundle.trust`: binaries only from
trusted signers) decides whose code runs, not this check.

The child (`clmodes/bundle/load_child.py`, run as a script) loads as a run does
(`clmodes.programs.load`): program from the binary, built for the one device it was made
for, and every kernel the bundle indexes to it created by name. It prints one line as it
starts each step and one as it ends it, so the parent knows which entry a crash or a
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
from clmodes.bundle.poclbin import NativeObject, native_objects
from clmodes.kernel import unit_suffix
from clmodes.store import BinaryRow, KernelRow

STARTUP_SECONDS = 60.0  # interpreter, pyopencl and platform discovery, on a loaded machine
ENTRY_SECONDS = 30.0  # one binary built, its kernels created and launched once
GENERIC_VARIABLE = "POCL_WORK_GROUP_SPECIALIZATION"  # "0": PoCL's generic work-group functions only

# A kernel argument as the child makes one for a check launch: [type name, pointer, resolved].
ArgKind = tuple[str, bool, bool]


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
    # Per entry name, its arguments' kinds for a check launch (None: the row kept none).
    arguments: tuple[tuple[str, tuple[ArgKind, ...] | None], ...] = ()
    shared_objects: tuple[dict[str, object], ...] = ()  # a PoCL binary's, unpacked beside it

    @property
    def key(self) -> tuple[str, str]:
        return (self.exact, self.batch)

    @property
    def generic(self) -> bool:
        """Whether it ships a generic work-group function, which only a launch under
        `POCL_WORK_GROUP_SPECIALIZATION=0` loads (a step of its own)."""
        return any(o["generic"] for o in self.shared_objects)


@dataclasses.dataclass(frozen=True)
class Step:
    """One child step: a job loaded (and its kernels launched at their shipped
    specialized shapes), or, `generic`, launched under PoCL's generic variant."""

    number: int
    generic: bool = False


def jobs_for(binaries: list[BinaryRow], kernels: list[KernelRow]) -> list[Job]:
    rows: dict[tuple[str, str], set[tuple[str, int | None]]] = {}
    kinds: dict[tuple[str, str], dict[str, tuple[ArgKind, ...] | None]] = {}
    for kernel in kernels:
        args = json.loads(kernel.args)  # validated: None or a list of rows
        rows.setdefault((kernel.exact, kernel.batch), set()).add(
            (kernel.name, None if args is None else len(args)))
        kinds.setdefault((kernel.exact, kernel.batch), {})[kernel.name] = arg_kinds(args)
    jobs = []
    for row in binaries:
        units = json.loads(row.units)  # validated: a list of strings
        entries = tuple(((name, *(name + unit_suffix(u) for u in units)), arguments)
                        for name, arguments in sorted(rows.get((row.exact, row.batch), ()),
                                                      key=lambda r: (r[0], r[1] or 0)))
        named = kinds.get((row.exact, row.batch), {})
        arguments = tuple((entry, named[names[0]]) for names, _ in entries for entry in names)
        jobs.append(Job(row.exact, row.batch, entries, arguments))
    return jobs


def arg_kinds(rows: list[list[object]] | None) -> tuple[ArgKind, ...] | None:
    """What a check launch needs of validated argument rows (`clmodes.arginfo`)."""
    if rows is None:
        return None
    return tuple((str(r[1]), bool(r[2]), bool(r[3]) if len(r) == 4 else True) for r in rows)


def steps_for(jobs: list[Job]) -> list[Step]:
    """Every job's load, then the generic launches of those that ship generic code:
    last, since a process that has set `POCL_WORK_GROUP_SPECIALIZATION=0` stays generic
    (unsetting it did not restore specialization in PoCL 3.0 or 3.1)."""
    return [Step(n) for n in range(len(jobs))] + [Step(n, True) for n, j in enumerate(jobs) if j.generic]


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
    to load (or to launch once, for a PoCL binary's native code) in a child process on
    `devices[exact]`; the others load."""
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
        steps = steps_for(jobs)
        remaining = list(range(len(steps)))
        while remaining:
            done, blamed = run_child(Path(folder), jobs, steps, remaining, places)
            for index, reason in sorted(done.items()):
                if reason:
                    refused.setdefault(jobs[steps[index].number].key, reason)
            if blamed is not None:
                refused.setdefault(jobs[steps[blamed[0]].number].key, blamed[1])
            finished = set(done) | ({blamed[0]} if blamed else set())
            if not finished:  # never seen; refusing is the safe side of a checker failure
                for index in remaining:
                    refused.setdefault(jobs[steps[index].number].key, "the load check did not reach it")
                break
            remaining = [i for i in remaining if i not in finished
                         and jobs[steps[i].number].key not in refused]
    return refused


def unpack_shared_objects(folder: Path, number: int, binary: bytes) -> tuple[dict[str, object], ...]:
    """The shared objects a PoCL binary carries, written out for the child, each with
    its kernel, the symbols PoCL resolves in it and the launch that makes PoCL load it
    (`clmodes.bundle.poclbin.NativeObject`): building the program never loads one, so
    the child loads each (a constructor that crashes crashes the child), resolves its
    work-group symbol and launches its kernel at its shape once."""
    if not binary.startswith(POCL_MAGIC):
        return ()
    return tuple(unpacked(folder, f"{number}-{index}.so", found, binary)
                 for index, found in enumerate(native_objects(binary)))


def unpacked(folder: Path, name: str, found: NativeObject, binary: bytes) -> dict[str, object]:
    (folder / name).write_bytes(binary[found.start:found.end])
    shape = found.shape()
    return {"file": name, "kernel": found.kernel, "directory": found.directory,
            "symbols": list(found.symbols()), "generic": found.generic,
            "launch": None if shape is None else {"local": list(shape.local),
                                                  "offset_zero": shape.offset_zero}}


def run_child(folder: Path, jobs: list[Job], steps: list[Step], indices: list[int],
              places: dict[str, dict[str, object]]) -> tuple[dict[int, str], tuple[int, str] | None]:
    """Run one child over the steps `indices`: what it finished (step index -> refusal,
    "" if it passed), and the step it crashed or hung on (with why), if it did."""
    plan = folder / "plan.json"
    plan.write_text(json.dumps([plan_entry(index, steps[index], jobs[steps[index].number], places)
                                for index in indices]))
    timeout = STARTUP_SECONDS + ENTRY_SECONDS * len(indices)
    env = {k: v for k, v in os.environ.items() if k != GENERIC_VARIABLE}  # the default variant first
    try:
        out = subprocess.run([sys.executable, "-c", BOOT, str(CHILD), str(folder)],
                             capture_output=True, text=True, timeout=timeout, cwd=folder,
                             env={**env, "POCL_CACHE_DIR": str(folder / "pocl-cache")})
        stdout, status, hung = out.stdout, out.returncode, False
    except subprocess.TimeoutExpired as expired:
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        status, hung = None, True
    done: dict[int, str] = {}
    started = None
    if not hung and status != 0 and not stdout.startswith("start"):
        # It died before its first entry: the check could not run, whatever the entries.
        return {i: f"the load check could not run ({describe_status(status)})" for i in indices}, None
    for line in stdout.splitlines():
        word, _, rest = line.partition(" ")
        number, _, reason = rest.partition(" ")
        if word == "start" and number.isdigit():
            started = int(number)
        elif word in ("ok", "fail") and number.isdigit():
            done[int(number)] = "" if word == "ok" else failure(steps[int(number)], reason)
            started = None
    if started is None and not hung and status == 0:
        return done, None
    if started is None:
        started = next((i for i in indices if i not in done), None)
        if started is None:
            return done, None
    where = f" under {GENERIC_VARIABLE}=0" if steps[started].generic else ""
    why = (f"hung the OpenCL loader{where} (more than {ENTRY_SECONDS:g} s)" if hung
           else f"crashed the OpenCL loader{where} ({describe_status(status)})")
    return done, (started, why)


def plan_entry(index: int, step: Step, job: Job, places: dict[str, dict[str, object]]) -> dict[str, object]:
    return {"step": index, "number": step.number, "generic": step.generic, **places[job.exact],
            "kernels": list(job.kernels), "arguments": dict(job.arguments),
            "shared_objects": list(job.shared_objects)}


def failure(step: Step, reason: str) -> str:
    return f"failed to load{f' under {GENERIC_VARIABLE}=0' if step.generic else ''} ({reason})"


def describe_status(status: int | None) -> str:
    if status is not None and status < 0:
        try:
            return signal.Signals(-status).name
        except ValueError:
            return f"signal {-status}"
    return f"exit status {status}"
