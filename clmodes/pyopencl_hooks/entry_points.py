"""The pyopencl entry points the hooks replace or rely on, checked before installing.

Why these are stable: `Program.build(options, devices, cache_dir)` is pyopencl's
documented build call and the single Python-level funnel of every source build since
2011 (its disk cache lives behind it); `enqueue_nd_range_kernel` is the OpenCL call
itself, and pyopencl's invoker has called it through `pyopencl._cl` by attribute since
the generated invokers appeared (2018). The private helpers used with them
(`_process_build_options`, `_build_and_catch_errors`, the `_source`/`_context`/`_prg`
attributes) are what `build` itself uses, so they move only together with it.

If an upgrade moves any of them, `check()` names what moved and the hooks are not
installed: pyopencl then works exactly as without clmodes, and `warm()`'s report says
those kernels ran outside clmodes. The test suite calls `check()` directly, so the
upgrade fails loudly there first.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from types import CodeType

import pyopencl as cl
import pyopencl._cl as _cl
import pyopencl.invoker as invoker

BUILD_PARAMETERS = ["self", "options", "devices", "cache_dir"]
INVOKER_CALL = "_cl.enqueue_nd_range_kernel("


class EntryPointMoved(RuntimeError):
    """pyopencl no longer has an entry point the hooks need (named in the message)."""


def check() -> None:
    """Raise `EntryPointMoved` naming the first entry point pyopencl moved."""
    build = getattr(cl.Program, "build", None)
    original = getattr(build, "__wrapped__", build)
    if not inspect.isfunction(original):
        raise EntryPointMoved(f"pyopencl {cl.VERSION_TEXT}: Program.build is not a Python function")
    parameters = list(inspect.signature(original).parameters)
    if parameters != BUILD_PARAMETERS:
        raise EntryPointMoved(f"pyopencl {cl.VERSION_TEXT}: Program.build takes {parameters}, "
                              f"not {BUILD_PARAMETERS}")
    for name in ("_process_build_options", "_build_and_catch_errors"):
        if not callable(getattr(cl.Program, name, None)):
            raise EntryPointMoved(f"pyopencl {cl.VERSION_TEXT}: Program.{name} is gone")
    for owner, label in ((_cl, "pyopencl._cl"), (cl, "pyopencl")):
        if not callable(getattr(owner, "enqueue_nd_range_kernel", None)):
            raise EntryPointMoved(f"pyopencl {cl.VERSION_TEXT}: {label}.enqueue_nd_range_kernel is gone")
    if INVOKER_CALL not in _text_of(invoker):
        raise EntryPointMoved(f"pyopencl {cl.VERSION_TEXT}: the invoker no longer launches "
                              f"through {INVOKER_CALL.rstrip('(')}")
    used = code_names(original.__code__)
    for attribute in ("_source", "_context", "_prg"):
        if attribute not in used:
            raise EntryPointMoved(f"pyopencl {cl.VERSION_TEXT}: Program.build no longer "
                                  f"uses self.{attribute}")


def code_names(code: CodeType) -> set[str]:
    """Every global and attribute name a function's code (its nested functions' too) reads
    or writes: `self._prg` puts `_prg` there. Read from the code object, not the source,
    for the cost given in `_text_of`."""
    found = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            found |= code_names(constant)
    return found


def _text_of(module: object) -> str:
    """A module's source text, read as a file: `inspect.getsource` tokenizes it, and this
    check runs in every process that installs the hooks (a warmed start: 7 ms of ~300)."""
    path = getattr(module, "__file__", None)
    if path:
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    return inspect.getsource(module)  # type: ignore[arg-type]
