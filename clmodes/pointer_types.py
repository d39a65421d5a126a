"""Does a `pyopencl.array.Array` suit a kernel's declared pointer type?

An Array knows its dtype, so an `int32` Array passed for a `float*` is a mistake clmodes
can see (the kernel would read the integers' bits as floats). A raw Buffer carries no
type and stays unchecked.

An Array suits `T*` (T a scalar or vector type) when every scalar it is made of is T's
scalar: a complex64 is two float32s, a structured dtype (`pyopencl.cltypes.float4`) its
fields, a subarray its elements; a vector type also needs the scalars to fill whole
vectors (a `float3` takes four). Byte pointers (`char*`, `uchar*`) view any memory and
`void*` any type; a type clmodes does not know (a struct, a typedef it could not
resolve) is never refused.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

_SCALARS = {
    "short": np.int16, "ushort": np.uint16, "int": np.int32, "uint": np.uint32,
    "long": np.int64, "ulong": np.uint64, "float": np.float32, "double": np.float64,
    "half": np.float16,
}
_ANY = {"void", "char", "uchar", "unsigned char", "signed char"}
_WIDTHS = {"": 1, "2": 2, "3": 4, "4": 4, "8": 8, "16": 16}
_TYPE = re.compile(r"^(?:unsigned )?([a-z]+?)(2|3|4|8|16)?$")
_QUALIFIERS = re.compile(r"\b(?:const|volatile|restrict|__global|global|__constant|constant)\b")


@dataclasses.dataclass(frozen=True)
class PointerType:
    """The element type a pointer argument wants: its scalar and the scalars per element."""

    scalar: np.dtype
    width: int
    name: str


def pointer_type(type_name: str) -> PointerType | None:
    """The element type a pointer argument declared as `type_name` ("float4*") checks
    Arrays against; None where any Array goes (bytes, void, an unknown type)."""
    text = _QUALIFIERS.sub("", type_name).replace("*", " ").strip()
    text = " ".join(text.split())
    if not text or text in _ANY or type_name.count("*") != 1:
        return None
    found = _TYPE.match(text)
    if not found:
        return None
    base, width = found.group(1), found.group(2) or ""
    if text.startswith("unsigned "):
        base = "u" + base
    scalar = _SCALARS.get(base)
    if scalar is None:
        return None
    return PointerType(np.dtype(scalar), _WIDTHS[width], base + width)


def element_bytes(type_name: str) -> int | None:
    """The bytes one element of a pointer declared as `type_name` spans (a `float3`:
    16, as OpenCL lays it out); None for a type clmodes does not know."""
    text = " ".join(_QUALIFIERS.sub("", type_name).replace("*", " ").split())
    if type_name.count("*") == 1 and text in _ANY - {"void"}:
        return 1
    wanted = pointer_type(type_name)
    return None if wanted is None else wanted.scalar.itemsize * wanted.width


def dtype_problem(wanted: PointerType, dtype: np.dtype, size: int) -> str | None:
    """Why an Array of `dtype` with `size` elements does not suit `wanted`, in words."""
    leaves = _scalars_of(dtype)
    if leaves is None or leaves[0] != wanted.scalar:
        return (f"has dtype {_name(dtype)}; {wanted.name}* takes {wanted.scalar.name} "
                f"elements (convert it, e.g. .astype(numpy.{wanted.scalar.name}), or pass "
                f".data to skip the check)")
    if (leaves[1] * size) % wanted.width:
        return (f"holds {leaves[1] * size} {wanted.scalar.name}s, not whole "
                f"{wanted.name} vectors of {wanted.width}")
    return None


def _scalars_of(dtype: np.dtype) -> tuple[np.dtype, int] | None:
    """The one scalar dtype `dtype` is made of and how many; None if it mixes several."""
    if dtype.subdtype is not None:
        inner, shape = dtype.subdtype
        found = _scalars_of(inner)
        return None if found is None else (found[0], found[1] * int(np.prod(shape)))
    if dtype.names and dtype.fields is not None:
        parts = [_scalars_of(dtype.fields[n][0]) for n in dtype.names]
        known = [p for p in parts if p is not None]
        if len(known) != len(parts) or len({p[0] for p in known}) != 1:
            return None
        scalar, count = known[0][0], sum(p[1] for p in known)
        if count * scalar.itemsize != dtype.itemsize:  # padding: a float3's fourth lane
            count = dtype.itemsize // scalar.itemsize
            if count * scalar.itemsize != dtype.itemsize:
                return None
        return scalar, count
    if dtype.kind == "c":
        return np.dtype(f"{dtype.byteorder}f{dtype.itemsize // 2}"), 2
    return dtype, 1


def _name(dtype: np.dtype) -> str:
    if dtype.names:
        return f"{dtype.name} ({', '.join(dtype.names)})"
    return dtype.name if dtype.isnative else dtype.str
