"""One real build of a batch from source, and the log of one that failed.

Why a `Program` around `_cl._Program` and not `cl.Program(context, source)`: pyopencl's
own build path consults its binary cache (pickle files under the user cache), which would
let a stale or foreign binary stand in for a build, and count as no build at all; clmodes'
store plays that part (keyed by exact device, counted, shipped). The compiler's output
goes to the `clmodes` logger at DEBUG, never to a warning a user did not ask for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import logging
import re
import time

import pyopencl as cl

from clmodes import compiler_output
from clmodes.device import Device
from clmodes.execution import Counter, tally

if TYPE_CHECKING:
    from clmodes.batch.program import Batch  # a source build's batch: imported where one is made

log = logging.getLogger("clmodes")

# Every clmodes build: launches check and convert arguments by their declared types.
BUILD_OPTIONS = ("-cl-kernel-arg-info",)


def build_batch(context: cl.Context, device: Device, batch: Batch, counted: bool = True) -> cl.Program:
    """Build `batch` on `device`; `counted`: a build that obtains kernels (`builds`),
    not one made only to capture a binary."""
    if counted:
        tally(Counter.BUILDS)
    return build_source(context, device, batch.source, batch.options, f"{len(batch.units)} units")


def build_source(context: cl.Context, device: Device, source: str, options: tuple[str, ...],
                 what: str, stored: bool = False) -> cl.Program:
    """One build of `source` with clmodes' options and `options`, bypassing pyopencl's
    cache (the module doc); `what` names it in the log. A batch's build, and (`stored`) a
    stored batch's `SourceRecord` built again (`programs.load`) with the very same text
    and options, so that PoCL's kernel cache finds the first. `stored` changes nothing
    here: it names the call for whoever watches builds (the tests' spy tells a record
    loaded from a compile)."""
    program = cl.Program(cl._cl._Program(context, source))
    program._source = source  # else pyopencl's attribute lookup asks the driver for a kernel named "_source"
    started = time.perf_counter()
    with compiler_output.logged(f"{what} on {device.label}"):
        program.build(options=[*BUILD_OPTIONS, *options], devices=[device.cl_device])
    log.debug("built %s on %s in %.3f s", what, device.label, time.perf_counter() - started)
    output = program.get_build_info(device.cl_device, cl.program_build_info.LOG).strip()
    if output:
        log.debug("compiler output for %s on %s:\n%s", what, device.label, output)
    return program


def build_exact(context: cl.Context, device: Device, source: str | bytes, options: str | bytes,
                what: str, stored: bool = False) -> cl._cl._Program:
    """A pyopencl program's build, exactly as pyopencl asked for it (its final options,
    no clmodes option added): its first build (`pyopencl_hooks.held`), and (`stored`)
    its `SourceRecord` built again, which PoCL's kernel cache then finds (`stored`, as
    in `build_source`, only names the call for whoever watches builds)."""
    program = cl._cl._Program(context, source)
    final = options.encode() if isinstance(options, str) else options
    # A stored program's build is clmodes' business: pyopencl's `CompilerWarning` for its
    # log goes to the clmodes log too; a first build warns as pyopencl would in a plain run.
    quiet = compiler_output.logged if stored else compiler_output.stderr_logged
    with quiet(f"{what} on {device.label}"):
        program.build(final, [device.cl_device])  # raises the compiler's error
    return program


def kernel_names(program: cl.Program) -> list[str] | None:
    """The kernels of a built program, by name; None if the driver will not say."""
    try:
        names = program.get_info(cl.program_info.KERNEL_NAMES)
    except cl.Error:
        return None
    return [name for name in str(names).split(";") if name]


def build_log(error: cl.Error) -> str:
    """The compiler's log, without pyopencl's repeated 'clBuildProgram failed' preamble."""
    text = str(error)
    match = re.search(r"Build on <[^>]*>:\s*", text)
    if match:
        text = text[match.end():]
    return text.split("\n(options:")[0].strip() or "(the compiler wrote no log)"
