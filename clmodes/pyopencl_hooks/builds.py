"""The build hook: `pyopencl.Program.build` of a source program on a managed context.

Every program pyopencl builds from source goes through the Python method
`pyopencl.Program.build`: `ElementwiseKernel` (`elementwise.get_elwise_program`),
`ReductionKernel` (`reduction._get_reduction_source` then `cl.Program(...).build`), the
scans, every `pyopencl.array` operation (they are elementwise and reduction kernels
memoized per context), `pyopencl.algorithm`, `clrandom`, and a user's own
`cl.Program(ctx, src).build()`. Replacing that one method covers them all, including the
ones written after this module.

What is left alone, on purpose:
- a program on a context clmodes does not manage (pyopencl builds it as it always has,
  with its own disk cache and `PYOPENCL_NO_CACHE`; while a warm or a check watches, its
  kernels are noted as built outside clmodes, `outside`);
- a program that already holds an OpenCL program (`Program(ctx, devices, binaries)`,
  `Program(_Program)`, SPIR-V): there is no source to identify, and clmodes' own server
  builds and loads its batches exactly this way, so they never count twice.

On a managed context pyopencl's disk cache is not consulted: the store plays its part
(keyed by exact device, counted, shipped in bundles, never pickled). pyopencl's
in-memory memoization (`context_dependent_memoize`, `first_arg_dependent_memoize`) stays
as it is: it keeps one kernel object per context, so a generated kernel reaches this hook
once per process, and the hook returns the held program for any repeat.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pyopencl as cl

from clmodes.building import kernel_names
from clmodes.pyopencl_hooks import outside, registry
from clmodes.pyopencl_hooks.identity import compiler_options

Build = Callable[..., cl.Program]


def make_build(original: Build) -> Build:
    """The replacement of `pyopencl.Program.build`, delegating to `original` for any
    program the hook leaves alone."""

    def build(self: cl.Program, options: Any = None, devices: Any = None,
              cache_dir: Any = None) -> cl.Program:
        context = _source_context(self)  # before a build replaces `_prg`
        owner = None if context is None else registry.owner_or_adopted(context)
        if owner is None:
            built = original(self, options, devices, cache_dir)
            if context is not None and outside.WATCHERS.live:  # a source program outside
                outside.note_built(kernel_names(built) or [])
            return built
        source = self.__dict__["_source"]
        processed = compiler_options(self.__dict__["_context"], options)
        started = time.time()
        self.__dict__["_prg"] = cl.Program._build_and_catch_errors(
            self,
            lambda: owner.obtain(source, processed), options_bytes=processed, source=source)
        # What pyopencl's own build leaves for its "lengthy build" log line.
        self.__dict__["_build_duration_info"] = (
            "clmodes store or source build", False, time.time() - started)
        return self

    build.__doc__ = original.__doc__
    build.__wrapped__ = original  # type: ignore[attr-defined]
    return build


def _source_context(program: cl.Program) -> cl.Context | None:
    """The context of a source program not built yet, or None for what the hook leaves
    alone whatever its context: a program that already holds an OpenCL program
    (binaries: clmodes' servers load their own batches that way).

    Read through `__dict__`: `Program.__getattr__` would answer a missing attribute by
    asking the driver for a kernel of that name."""
    state = program.__dict__
    if state.get("_prg") is not None or "_source" not in state or "_context" not in state:
        return None
    return state["_context"]
