"""Is a device usable? A trivial kernel built and run once per exact device and driver.

Why a check at all: a runtime can list a device whose compiler cannot build anything.
PyPI's PoCL 3.0 (LLVM 14) on a CPU its LLVM does not know (AMD family 26, Zen 5) fails
every build with "unknown target CPU 'generic'"; listing it as a device and failing 33
builds later told a user nothing. The check builds a one-line kernel, runs it on one
work-item and reads the value back, so a compiler that builds but generates no code (a
failure PoCL only meets at the first launch) is found out too.

Why cached in the store: the check costs one build and one launch (code generation on
PoCL); once per machine and driver is cheap, once per process is not. The cache key is
the exact device *and* the environment variables that change how its compiler behaves
(`POCL_*`, `CL_CONFIG_*`, ...): a user who fixes a broken runtime through them, or a test
that breaks one on purpose, never reads a verdict taken under other settings. Another
driver is another exact device, so upgrading a runtime re-checks it.

The trap avoided: the build bypasses pyopencl's own binary cache (a cached binary would
hide a compiler that no longer works), like every clmodes build.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl

from clmodes import compiler_output, settings
from clmodes.device import Device
from clmodes.errors import first_error_line
from clmodes.pyopencl_hooks import outside
from clmodes.store.store import Store

log = logging.getLogger("clmodes")

CHECK_SOURCE = """
__kernel void clmodes_check(__global int* out)
{
    out[get_global_id(0)] = 40 + 2 * (int)get_global_id(0);
}
"""
CHECK_VALUE = 40  # what work-item 0 writes

# Environment variables that change what a runtime's compiler does; part of the cache key
# (the runtimes' own, read here as they are, and pyopencl's options as their raw text).
ENVIRONMENT_PREFIXES = ("POCL_", "CL_CONFIG_", "OCLGRIND_", "CUDA_CACHE_", "AMD_OCL_",
                        settings.PYOPENCL_BUILD_OPTIONS.name)

UNKNOWN_CPU_REMEDY = (
    "this PoCL's LLVM does not know this CPU: use a PoCL whose LLVM does "
    "(Debian/Ubuntu: `apt-get install pocl-opencl-icd`) or Intel's CPU runtime "
    "(`pip install 'clmodes[intel]'`)"
)
GENERIC_REMEDY = (
    "check the runtime's installation, or use another: `clmodes devices` lists them; "
    "`pip install 'clmodes[cpu]'` brings two CPU runtimes"
)


@dataclasses.dataclass(frozen=True)
class Usability:
    """A device's verdict: `reason` is the first line of what failed, `remedy` what to do."""

    usable: bool
    reason: str | None = None
    remedy: str | None = None
    checked_s: float = 0.0  # how long the check took when it was taken

    def describe(self) -> str:
        """"usable", or "unusable: REASON; REMEDY" — one line, never cut before the reason."""
        if self.usable:
            return "usable"
        return f"unusable: {self.reason}; {self.remedy}"

    def as_dict(self) -> dict[str, object]:
        return {"usable": self.usable, "reason": self.reason, "remedy": self.remedy}


def environment_digest(environ: dict[str, str] | None = None) -> str:
    """A short digest of the compiler-relevant environment: part of the cache key."""
    environ = dict(os.environ if environ is None else environ)
    relevant = sorted((k, v) for k, v in environ.items() if k.startswith(ENVIRONMENT_PREFIXES))
    return hashlib.sha256(repr(relevant).encode()).hexdigest()[:16]


def remedy_for(reason: str) -> str:
    return UNKNOWN_CPU_REMEDY if "unknown target cpu" in reason.lower() else GENERIC_REMEDY


def check_now(device: Device) -> Usability:
    """Build and run the trivial kernel on `device`, in this process."""
    started = time.perf_counter()
    try:
        with outside.clmodes_own():
            value = _build_and_run(device)
    except CheckFailed as failure:
        reason = first_error_line(failure.message)
        return Usability(False, reason, remedy_for(reason), time.perf_counter() - started)
    elapsed = time.perf_counter() - started
    if value != CHECK_VALUE:
        reason = f"a trivial kernel computed {value} instead of {CHECK_VALUE}"
        return Usability(False, reason, GENERIC_REMEDY, elapsed)
    return Usability(True, checked_s=elapsed)


class CheckFailed(Exception):
    """The trivial build or launch failed; `message` is the build log, else the error."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _build_and_run(device: Device) -> int:
    try:
        context = cl.Context([device.cl_device])
        queue = cl.CommandQueue(context)
        program = cl.Program(cl._cl._Program(context, CHECK_SOURCE))
    except cl.Error as error:
        raise CheckFailed(f"cannot create a context: {error}") from None
    try:
        with compiler_output.logged(f"the device check on {device.label}"):
            program.build(devices=[device.cl_device])
    except cl.Error as error:
        raise CheckFailed(_build_log(program, device) or str(error)) from None
    try:
        out = np.zeros(1, dtype=np.int32)
        buffer = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, out.nbytes)
        program.clmodes_check(queue, (1,), None, buffer)
        cl.enqueue_copy(queue, out, buffer)
        queue.finish()
    except cl.Error as error:
        raise CheckFailed(f"a trivial kernel failed to run: {error}") from None
    return int(out[0])


def _build_log(program: cl.Program, device: Device) -> str:
    try:
        log_text = program.get_build_info(  # type: ignore[no-untyped-call]
            device.cl_device, cl.program_build_info.LOG)
        return str(log_text).strip()
    except cl.Error:
        return ""


class UsabilityCache:
    """Each device checked once: per process in memory, per machine in the store."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self._store = store
        self._known: dict[str, Usability] = {}
        self._lock = threading.Lock()

    def of(self, device: Device) -> Usability:
        """The device's verdict. In memory it is kept per exact device (the environment a
        process was started with is the one it keeps), so asking costs a lookup."""
        exact = device.fingerprint.exact
        found = self._known.get(exact)
        if found is not None:
            return found
        with self._lock:  # one check per device at a time: two threads share one build
            found = self._known.get(exact)
            if found is None:
                found = self._known[exact] = self._stored_or_checked(
                    device, (exact, environment_digest()))
            return found

    def _stored_or_checked(self, device: Device, key: tuple[str, str]) -> Usability:
        store = self._store()
        stored = store.get_device_check(*key)
        if stored is not None:
            return Usability(bool(stored["usable"]), stored.get("reason"), stored.get("remedy"))
        verdict = check_now(device)
        log.log(logging.INFO if verdict.usable else logging.WARNING,
                "%s is %s (checked in %.2f s)", device.label, verdict.describe(),
                verdict.checked_s)
        store.put_device_check(*key, verdict.as_dict())
        return verdict
