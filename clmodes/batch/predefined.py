"""What a device's OpenCL C compiler predefines, as far as the OpenCL C spec fixes it.

Each unit is preprocessed by clmodes before it is batched, so the preprocessor must see
what the device's compiler would: the OpenCL version macros, one macro per supported
extension and OpenCL C feature, `__IMAGE_SUPPORT__`, `__ENDIAN_LITTLE__`,
`__FAST_RELAXED_MATH__` under `-cl-fast-relaxed-math`, and the spec's constants.

Two kinds of predefined macro:
- *with a value* the spec fixes (`__OPENCL_VERSION__ 300`, `CL_VERSION_1_2 120`,
  `cl_khr_fp64 1`): defined with it, so `#if` can evaluate them;
- *constants the compiler expands itself* (`M_PI_F`, `MAXFLOAT`, `INFINITY`, `FLT_MAX`):
  defined as themselves, so `#ifndef M_PI_F` is false and every use reaches the compiler
  untouched (a self-referential macro does not expand again). Their spelling is the
  compiler's business: `INFINITY` is `__builtin_inff()` in clang, and a value written here
  could differ from it in the last bit.

Anything else a compiler may predefine (`__has_builtin`, `__clang__`, `__x86_64__` on
PoCL, `__OPENCL_C_VERSION__` without `-cl-std` (PoCL: 300, not the spec's 120), `__NV_CL_C_VERSION`, `CL_VERSION_2_0` in OpenCL C 1.2 mode, an extension the
device does not list) is *unknown*: `maybe_predefined()` says so, and a unit whose
conditionals read an unknown name builds alone from its own text, since guessing wrong
silently changes what it computes (pcpp's pass-through of such `#if`s kept the `#if`
lines but expanded later uses with the macros defined inside them: the trap measured in
the issue).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Iterable, Mapping

import pyopencl as cl

from clmodes.kernel import split_options

FLOAT_CONSTANTS = frozenset(
    """
    FLT_DIG FLT_MANT_DIG FLT_MAX_10_EXP FLT_MAX_EXP FLT_MIN_10_EXP FLT_MIN_EXP FLT_RADIX
    FLT_MAX FLT_MIN FLT_EPSILON CHAR_BIT CHAR_MAX CHAR_MIN INT_MAX INT_MIN LONG_MAX LONG_MIN
    SCHAR_MAX SCHAR_MIN SHRT_MAX SHRT_MIN UCHAR_MAX USHRT_MAX UINT_MAX ULONG_MAX
    M_E_F M_LOG2E_F M_LOG10E_F M_LN2_F M_LN10_F M_PI_F M_PI_2_F M_PI_4_F M_1_PI_F M_2_PI_F
    M_2_SQRTPI_F M_SQRT2_F M_SQRT1_2_F MAXFLOAT HUGE_VALF INFINITY NAN FP_ILOGB0 FP_ILOGBNAN
    """.split()
)
DOUBLE_CONSTANTS = frozenset(
    """
    DBL_DIG DBL_MANT_DIG DBL_MAX_10_EXP DBL_MAX_EXP DBL_MIN_10_EXP DBL_MIN_EXP DBL_MAX
    DBL_MIN DBL_EPSILON M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI
    M_2_SQRTPI M_SQRT2 M_SQRT1_2 HUGE_VAL
    """.split()
)
HALF_CONSTANTS = frozenset(
    """
    HALF_DIG HALF_MANT_DIG HALF_MAX_10_EXP HALF_MAX_EXP HALF_MIN_10_EXP HALF_MIN_EXP
    HALF_RADIX HALF_MAX HALF_MIN HALF_EPSILON M_E_H M_LOG2E_H M_LOG10E_H M_LN2_H M_LN10_H
    M_PI_H M_PI_2_H M_PI_4_H M_1_PI_H M_2_PI_H M_2_SQRTPI_H M_SQRT2_H M_SQRT1_2_H
    """.split()
)
# Vendor or implementation macros the spec names without fixing them.
_IMPLEMENTATION = frozenset(("FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMA_HALF", "NULL"))

# Macros of other languages' compilers that no OpenCL C compiler defines.
NEVER_DEFINED = frozenset(
    """
    __cplusplus __OPENCL_CPP_VERSION__ __CUDACC__ __CUDA_ARCH__ __HIPCC__
    __HIP_DEVICE_COMPILE__ _MSC_VER __SYCL_DEVICE_ONLY__ __INTEL_COMPILER
    """.split()
)

_RESERVED = re.compile(r"__|_[A-Z]|cl_|CL_|CLK_")


@dataclasses.dataclass(frozen=True)
class DeviceTraits:
    """The device facts predefined macros follow: plain data, so recorded GPUs work too."""

    platform_name: str
    version: str  # "OpenCL 3.0 CUDA"
    opencl_c_version: str  # "OpenCL C 1.2 ..."
    extensions: tuple[str, ...]
    features: tuple[str, ...]  # OpenCL 3.0 `__opencl_c_*` feature macros
    little_endian: bool
    image_support: bool

    @classmethod
    def of(cls, device: cl.Device) -> "DeviceTraits":
        try:
            features = tuple(f.name for f in device.opencl_c_features)
        except (cl.Error, AttributeError):
            features = ()
        return cls(
            platform_name=device.platform.name,
            version=device.version,
            opencl_c_version=device.opencl_c_version,
            extensions=tuple(device.extensions.split()),
            features=features,
            little_endian=bool(device.endian_little),
            image_support=bool(device.image_support),
        )


@dataclasses.dataclass(frozen=True)
class CompilerMacros:
    """The macros a unit is preprocessed with, besides its own defines."""

    values: tuple[tuple[str, str], ...]
    absent: frozenset[str]  # names the compiler certainly does not define
    unsupported: str | None = None  # why no unit with these options can batch

    @functools.cached_property
    def named(self) -> dict[str, str]:
        """`values` as a dict, made once: preprocessing asks it on every directive."""
        return dict(self.values)

    def as_dict(self) -> dict[str, str]:
        return self.named

    def maybe_predefined(self, name: str) -> bool:
        """Could the compiler define `name`, although it is not among `values`?"""
        if name in self.absent:
            return False
        return bool(_RESERVED.match(name)) or name in _SPEC_NAMES

    @classmethod
    def of(cls, traits: DeviceTraits, options: Iterable[str]) -> "CompilerMacros":
        """For a device and a unit's build options (`-cl-std`, `-cl-fast-relaxed-math`)."""
        options = list(options)
        values: dict[str, str] = {
            "__OPENCL_VERSION__": str(_version_number(traits.version, "OpenCL")),
            "CL_VERSION_1_0": "100", "CL_VERSION_1_1": "110", "CL_VERSION_1_2": "120",
        }
        absent = set(NEVER_DEFINED)
        c_version, unsupported = _c_version(options)
        if c_version is not None:
            values["__OPENCL_C_VERSION__"] = str(c_version)
        for name, present in (
            ("__ENDIAN_LITTLE__", traits.little_endian),
            ("__IMAGE_SUPPORT__", traits.image_support),
            ("__FAST_RELAXED_MATH__", "-cl-fast-relaxed-math" in options),
        ):
            if present:
                values[name] = "1"
            else:
                absent.add(name)
        values.update(dict.fromkeys(traits.extensions, "1"))
        values.update(dict.fromkeys(traits.features, "1"))
        constants = set(FLOAT_CONSTANTS)
        if "cl_khr_fp64" in traits.extensions or "__opencl_c_fp64" in traits.features:
            constants |= DOUBLE_CONSTANTS
        if "cl_khr_fp16" in traits.extensions or "__opencl_c_fp16" in traits.features:
            constants |= HALF_CONSTANTS
        values.update({name: name for name in sorted(constants)})
        values.update(pyopencl_defines(traits.platform_name))
        return cls(tuple(sorted(values.items())), frozenset(absent), unsupported)


_SPEC_NAMES = FLOAT_CONSTANTS | DOUBLE_CONSTANTS | HALF_CONSTANTS | _IMPLEMENTATION


def _version_number(text: str, prefix: str) -> int:
    """"OpenCL 3.0 CUDA" -> 300; "OpenCL C 1.2 PoCL" -> 120."""
    match = re.search(rf"{prefix}\s+(\d+)\.(\d+)", text)
    return int(match.group(1)) * 100 + int(match.group(2)) * 10 if match else 100


def _c_version(options: list[str]) -> tuple[int | None, str | None]:
    """`__OPENCL_C_VERSION__` when `-cl-std=CLx.y` fixes it; else unknown. The spec's
    default (the highest OpenCL C 1.x) is not what runtimes do: PoCL 3.0 compiles as 3.0
    (measured by `tests/corpus/opencl_version.cl`)."""
    for option in options:
        if option.startswith("-cl-std="):
            wanted = option.split("=", 1)[1]
            match = re.fullmatch(r"CL(\d)\.(\d)", wanted)
            if match is None:
                return None, f"the build option {option} (C++ for OpenCL or unknown) is not preprocessed here"
            return int(match.group(1)) * 100 + int(match.group(2)) * 10, None
    return None, None


def pyopencl_defines(platform_name: str) -> Mapping[str, str]:
    """The defines pyopencl adds to every build on this platform (`-D
    PYOPENCL_USING_OCLGRIND` on Oclgrind) and through `$PYOPENCL_BUILD_OPTIONS`: the
    compiler sees them, so the preprocessor must too."""
    extra = list(getattr(cl, "_PLAT_BUILD_OPTIONS", {}).get(platform_name, []))
    extra += os.environ.get("PYOPENCL_BUILD_OPTIONS", "").split()
    defines, _ = split_options(extra)
    return {name: "1" if value is None else value for name, value in defines.items()}
