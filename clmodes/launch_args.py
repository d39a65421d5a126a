"""Launch arguments off the hot path: which runtimes need buffers checked, Arrays passed
where buffers belong, and what is wrong with a scalar, in words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

import numpy as np
import pyopencl as cl
import pyopencl.array as cla



# The numpy dtype of each OpenCL scalar type, for Python numbers passed as arguments.
SCALAR_DTYPES = {
    "char": np.int8, "uchar": np.uint8, "unsigned char": np.uint8,
    "short": np.int16, "ushort": np.uint16, "unsigned short": np.uint16,
    "int": np.int32, "uint": np.uint32, "unsigned int": np.uint32,
    "long": np.int64, "ulong": np.uint64, "unsigned long": np.uint64,
    "float": np.float32, "double": np.float64, "half": np.float16,
    "bool": np.int32,
}


class _Info(Protocol):
    """An argument's declared name and type (`launchable.ArgInfo`): read-only."""

    @property
    def name(self) -> str: ...
    @property
    def type_name(self) -> str: ...
    @property
    def pointer(self) -> bool: ...


def guards_buffers(device: cl.Device) -> bool:
    """Does a launch on `device` need its buffers checked before the runtime sees them?
    Intel's CPU runtime validates handles (INVALID_MEM_OBJECT, which the error path
    explains); PoCL and Oclgrind follow a foreign handle and crash, and a runtime not
    tried is assumed to."""
    return "Intel(R) OpenCL" not in device.platform.name


def other_context(value: cl.MemoryObjectHolder, context: cl.Context | None) -> str | None:
    """Where a memory object of another context than `context` lives, in words; None if
    it is that one's. Its context is asked of the runtime that made it (the ICD loader
    dispatches on the object), which is safe for a live object of any platform."""
    try:
        found = value.context
    except cl.Error as error:  # Intel: a context whose last Python handle is gone
        return f"one that cannot be inspected: {str(error).splitlines()[0]}"
    if context is None or found == context:
        return None
    return "on " + ", ".join(d.name.strip() for d in found.devices)


def with_buffers(args: tuple[object, ...]) -> tuple[object, ...] | None:
    """The arguments with each `pyopencl.array.Array` as its buffer (its offset kept, as a
    sub-buffer); None when there is none to convert."""
    if not any(isinstance(a, cla.Array) for a in args):
        return None
    return tuple(_buffer_of(a) if isinstance(a, cla.Array) else a for a in args)


def _buffer_of(array: cla.Array) -> cl.MemoryObjectHolder:
    base: Any = array.base_data  # a Buffer for every Array clmodes accepts (not SVM)
    if not array.offset:
        return cast(cl.MemoryObjectHolder, base)
    return cast(cl.MemoryObjectHolder, base.get_sub_region(array.offset, array.nbytes))


def scalar_problem(dtypes: list[object] | None, index: int, value: object) -> str | None:
    """What is wrong with a value for a scalar argument of a known type, in words."""
    dtype = None if dtypes is None else dtypes[index]
    if dtype is None:
        return None
    kind = np.dtype(dtype)  # type: ignore[call-overload]  # a numpy scalar type
    if isinstance(value, (np.generic, np.ndarray)):
        return None
    if not isinstance(value, (bool, int, float)):
        return f"needs a number, got {type(value).__name__} {value!r:.40}"
    if kind.kind in "iu":
        if isinstance(value, float):
            return f"needs an integer, got float {value!r}"
        info = np.iinfo(kind)
        if not info.min <= value <= info.max:
            return f"cannot hold {value} ({kind.name}: {info.min}..{info.max})"
    return None



def argument_problem(
    infos: Sequence[_Info] | None, dtypes: list[object] | None,
    unresolved: tuple[int, ...], args: tuple[object, ...],
) -> str | None:
    """The first argument that does not suit its declared type, in words ("argument 2
    (int n) needs a scalar, got Buffer"); None when none is seen to be wrong."""
    if infos is None:
        return None
    for i in unresolved:
        if isinstance(args[i], (bool, int, float)):
            # Its dtype slot is None, so pyopencl refuses it: converting it by guess
            # wrote the bits of 7.0f where an int 7 was meant.
            info = infos[i]
            return (f"argument {i} ({info.type_name} {info.name}) has a typedef whose #if "
                    f"branches disagree, so a Python {type(args[i]).__name__} cannot be "
                    f"converted; pass a numpy scalar of its type (e.g. numpy.int32(...))")
    for i, (info, value) in enumerate(zip(infos, args)):
        is_memory = isinstance(value, (cl.MemoryObjectHolder, cl.LocalMemory))
        if info.pointer != is_memory and not isinstance(value, cla.Array):
            wanted = "a buffer (pass array.data)" if info.pointer else "a scalar"
            return (f"argument {i} ({info.type_name} {info.name}) needs {wanted}, "
                    f"got {type(value).__name__}")
        problem = None if info.pointer else scalar_problem(dtypes, i, value)
        if problem:
            return f"argument {i} ({info.type_name} {info.name}) {problem}"
    return None
