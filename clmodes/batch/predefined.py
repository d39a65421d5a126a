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
the issue) -- unless the device's compiler was asked (`compiler_probe`): its `Answer`s
(`CompilerMacros.of(..., answers)`) make those names known, exactly as it sees them.

With answers, the extension and feature macros come from them too, never from the
device's extension list: Intel's CPU compiler does not define `cl_khr_integer_dot_product`
although the device lists it, and a unit guarded by it took another branch batched than
alone. Without answers (recorded devices, no probe) the list is all there is.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping

import pyopencl as cl

from clmodes import settings
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

# Builtin function-like checks a conditional may call (`#if __has_builtin(x)`): answered
# per call, `__has_builtin(__builtin_expect)`, never defined as macros here.
FEATURE_CHECKS = frozenset((
    "__has_builtin", "__has_attribute", "__has_feature", "__has_extension",
    "__has_c_attribute", "__has_declspec_attribute", "__is_identifier",
))
# Names whose value depends on where they are read, so one probe cannot answer them.
CONTEXTUAL = frozenset((
    "__LINE__", "__FILE__", "__FILE_NAME__", "__BASE_FILE__", "__INCLUDE_LEVEL__",
    "__COUNTER__", "__DATE__", "__TIME__", "__TIMESTAMP__", "__has_include",
    "__has_include_next",
))


@dataclasses.dataclass(frozen=True)
class Answer:
    """What the device's compiler says of one name or call: defined or not, and its value
    when that is an integer (None: defined as something else, `#if` cannot read it)."""

    defined: bool
    value: int | None = None

    def as_json(self) -> dict[str, object]:
        return {"defined": self.defined, "value": self.value}

    @classmethod
    def from_json(cls, data: object) -> "Answer | None":
        """None for anything but what `as_json` writes (a hostile or damaged row)."""
        if not isinstance(data, dict) or not isinstance(data.get("defined"), bool):
            return None
        value = data.get("value")
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return None
        return cls(data["defined"], value)


def is_call(query: str) -> bool:
    """`__has_builtin(x)` (a call, answered as a value) rather than a plain name."""
    return "(" in query


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
    # Asked of the compiler: defined names whose value is no integer (defined as
    # themselves, like the constants: `#ifdef` reads them, `#if` arithmetic cannot), and
    # the answers to feature-check calls (`__has_builtin(x)` -> 1).
    opaque: frozenset[str] = frozenset()
    calls: tuple[tuple[str, int], ...] = ()
    probed: bool = False  # made with the compiler's answers: extensions come from them

    @functools.cached_property
    def called(self) -> dict[str, int]:
        return dict(self.calls)

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

    def probe_worthy(self, name: str) -> bool:
        """Can the compiler's answer settle `name` (a plain name or a feature-check call)?"""
        if is_call(name):
            return name not in self.called and name.split("(", 1)[0] in FEATURE_CHECKS
        return (name not in CONTEXTUAL and name not in self.named and name not in self.absent
                and self.maybe_predefined(name))

    @classmethod
    def of(cls, traits: DeviceTraits, options: Iterable[str],
           answers: Mapping[str, Answer] | None = None) -> "CompilerMacros":
        """For a device and a unit's build options (`-cl-std`, `-cl-fast-relaxed-math`),
        with what its compiler answered for these options (`answers`), if it was asked."""
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
        if answers is None:
            values.update(dict.fromkeys(traits.extensions, "1"))
            values.update(dict.fromkeys(traits.features, "1"))
        constants = set(FLOAT_CONSTANTS)
        if "cl_khr_fp64" in traits.extensions or "__opencl_c_fp64" in traits.features:
            constants |= DOUBLE_CONSTANTS
        if "cl_khr_fp16" in traits.extensions or "__opencl_c_fp16" in traits.features:
            constants |= HALF_CONSTANTS
        values.update({name: name for name in sorted(constants)})
        values.update(pyopencl_defines(traits.platform_name))
        if answers is None:
            return cls(tuple(sorted(values.items())), frozenset(absent), unsupported)
        opaque: set[str] = set()
        calls: dict[str, int] = {}
        for name, answer in answers.items():
            if is_call(name):
                if answer.defined and answer.value is not None:
                    calls[name] = answer.value
                continue
            # The compiler's word over the spec's: it is what a unit built alone sees.
            values.pop(name, None)
            absent.discard(name)
            if not answer.defined:
                absent.add(name)
            elif answer.value is None:
                values[name] = name
                opaque.add(name)
            else:
                values[name] = str(answer.value)
        return cls(tuple(sorted(values.items())), frozenset(absent), unsupported,
                   frozenset(opaque), tuple(sorted(calls.items())), probed=True)


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
    extra += settings.PYOPENCL_BUILD_OPTIONS.get()
    defines, _ = split_options(extra)
    return {name: "1" if value is None else value for name, value in defines.items()}
