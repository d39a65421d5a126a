"""Global and local sizes checked against the device before a launch is enqueued.

Some runtimes do not refuse an impossible size, they abort the process: PoCL's CPU
drivers count a launch's work-groups in 32 bits and fail an assertion past that (a global
size of 2**62 kills the interpreter); Oclgrind is a CPU device too. So sizes are checked here, once per distinct
(global, local) pair of a kernel, against limits asked of the driver once per device:
the size_t range, the number of dimensions, the work-group limits (per dimension, in all,
and the kernel's own), local dividing global where the program needs uniform work-groups,
and zero sizes.
"""

from __future__ import annotations

import dataclasses
import math
import re

import pyopencl as cl

_VERSION = re.compile(r"OpenCL (\d+)\.(\d+)")
_CL_STD = re.compile(r"-cl-std=CL(\d+)\.(\d+)")
# Past this many work-groups PoCL's CPU drivers abort, Oclgrind would simulate for ever and
# Intel's CPU runtime runs for hours: CPU devices and PoCL are held to it; a GPU's own
# driver decides.
_WORK_GROUPS_MAX = 2**32 - 1
_SEEN_MAX = 256  # (global, local) pairs remembered per kernel as possible


@dataclasses.dataclass(frozen=True)
class DeviceLimits:
    """What the driver says about one device's launch sizes (asked once per device)."""

    dims: int
    item_sizes: tuple[int, ...]
    group_size: int
    size_max: int
    version: tuple[int, int]
    non_uniform: bool  # the device supports non-uniform work-groups (OpenCL 2.0+)
    groups_max: int | None

    @classmethod
    def of(cls, device: cl.Device) -> "DeviceLimits":
        key = device.int_ptr
        limits = _DEVICES.get(key)
        if limits is None:
            limits = _DEVICES[key] = cls._ask(device)
        return limits

    @classmethod
    def _ask(cls, device: cl.Device) -> "DeviceLimits":
        version = _version(_VERSION, device.version) or (1, 0)
        non_uniform = version >= (2, 0)
        if version >= (3, 0):
            try:
                non_uniform = bool(device.get_info(cl.device_info.NON_UNIFORM_WORK_GROUP_SUPPORT))
            except (cl.Error, AttributeError):
                non_uniform = False
        held = bool(device.type & cl.device_type.CPU) or "Portable" in device.platform.name
        return cls(
            dims=int(device.max_work_item_dimensions),
            item_sizes=tuple(int(s) for s in device.max_work_item_sizes),
            group_size=int(device.max_work_group_size),
            size_max=2 ** int(device.address_bits) - 1,
            version=version, non_uniform=non_uniform,
            groups_max=_WORK_GROUPS_MAX if held else None,
        )


_DEVICES: dict[int, DeviceLimits] = {}


@dataclasses.dataclass
class SizeLimits:
    """One kernel's limits on one device: the device's, its own work-group size, and
    whether its program needs local to divide global; and the (global, local) pairs
    already found possible, which the launch path looks up before asking `problem`.

    Asked of the driver at the kernel's first launch, not when it is obtained: PoCL
    compiles a kernel to answer its work-group size, and a warm obtains many kernels it
    never launches."""

    device: DeviceLimits | None
    group_size: int
    uniform: bool
    seen: set[object] = dataclasses.field(default_factory=set, compare=False)
    unasked: tuple[cl.Device, cl.Kernel, cl.Program] | None = None

    @classmethod
    def unlimited(cls) -> "SizeLimits":
        """No device to check against: every size goes to the runtime as it is."""
        return cls(None, 0, False)

    def problem(self, global_size: object, local_size: object) -> str | None:
        """What makes these sizes impossible, in words; None (and remembered) if nothing."""
        try:
            hash((global_size, local_size))
        except TypeError:
            return f"sizes {global_size!r:.60}, {local_size!r:.60} are not integers"
        if self.unasked is not None:
            self._ask(*self.unasked)
        if self.device is not None:
            found = size_problem(self, global_size, local_size)  # type: ignore[arg-type]
            if found:
                return found
        if len(self.seen) >= _SEEN_MAX:
            self.seen.clear()
        self.seen.add((global_size, local_size))
        return None

    @classmethod
    def of(cls, device: cl.Device, kernel: cl.Kernel, program: cl.Program) -> "SizeLimits":
        """The limits of `kernel`, asked when first needed."""
        return cls(None, 0, False, unasked=(device, kernel, program))

    def _ask(self, device: cl.Device, kernel: cl.Kernel, program: cl.Program) -> None:
        limits = DeviceLimits.of(device)
        try:
            own = int(kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device))
        except cl.Error:
            own = limits.group_size
        self.group_size = min(own, limits.group_size) or limits.group_size
        self.uniform = _needs_uniform(limits, _build_options(program, device))
        self.device, self.unasked = limits, None


def _version(pattern: re.Pattern[str], text: str) -> tuple[int, int] | None:
    found = pattern.search(text)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _build_options(program: cl.Program, device: cl.Device) -> str:
    try:
        return str(program.get_build_info(device, cl.program_build_info.OPTIONS))
    except cl.Error:
        return ""


def _needs_uniform(limits: DeviceLimits, options: str) -> bool:
    """Non-uniform work-groups need the device's support and an OpenCL C 2.0+ program
    (the default is 1.2 whatever the device), without -cl-uniform-work-group-size."""
    std = _version(_CL_STD, options) or (1, 2)
    return not limits.non_uniform or std < (2, 0) or "-cl-uniform-work-group-size" in options


def size_problem(
    limits: SizeLimits, global_size: tuple[object, ...], local_size: tuple[object, ...] | None
) -> str | None:
    """What makes this launch's sizes impossible on the device, in words; None if nothing."""
    device = limits.device
    assert device is not None
    problem = _shape_problem(device, global_size, local_size)
    if problem:
        return problem
    sizes = [int(g) for g in global_size]  # type: ignore[call-overload]
    if any(g == 0 for g in sizes) and device.version < (2, 1):
        return (f"global size {_text(global_size)} has a zero dimension, which OpenCL "
                f"{device.version[0]}.{device.version[1]} refuses")
    if math.prod(sizes) > device.size_max:
        return (f"global size {_text(global_size)} has more work-items than size_t holds "
                f"(at most {device.size_max})")
    if local_size is None:  # the runtime picks: at best work-groups of the most it allows
        groups = -(-math.prod(sizes) // limits.group_size)
    else:
        locals_ = [int(s) for s in local_size]  # type: ignore[call-overload]
        problem = _local_problem(limits, sizes, locals_, local_size)
        if problem:
            return problem
        groups = math.prod(-(-g // loc) for g, loc in zip(sizes, locals_))
    if device.groups_max is not None and groups > device.groups_max:
        return (f"global size {_text(global_size)} makes {groups} work-groups, more than "
                f"clmodes launches on this device ({device.groups_max})")
    return None


def _shape_problem(
    device: DeviceLimits, global_size: tuple[object, ...], local_size: tuple[object, ...] | None
) -> str | None:
    if not 1 <= len(global_size) <= device.dims:
        return (f"global size {_text(global_size)} has {len(global_size)} dimensions; "
                f"the device takes 1 to {device.dims}")
    if local_size is not None and len(local_size) != len(global_size):
        return (f"local size {_text(local_size)} has {len(local_size)} dimensions, "
                f"global size {_text(global_size)} has {len(global_size)}")
    for what, sizes in (("global", global_size), ("local", local_size or ())):
        for s in sizes:
            if isinstance(s, bool) or not isinstance(s, int) and not hasattr(s, "__index__"):
                return f"{what} size {_text(sizes)} holds {type(s).__name__} {s!r:.40}, not an integer"
            if not 0 <= int(s) <= device.size_max:  # type: ignore[call-overload]
                return (f"{what} size {_text(sizes)} is outside the device's size_t range "
                        f"(0..{device.size_max})")
    return None


def _local_problem(
    limits: SizeLimits, sizes: list[int], locals_: list[int], local_size: tuple[object, ...]
) -> str | None:
    device = limits.device
    assert device is not None
    if any(loc == 0 for loc in locals_):
        return f"local size {_text(local_size)} has a zero dimension"
    for d, (loc, most) in enumerate(zip(locals_, device.item_sizes)):
        if loc > most:
            return (f"local size {_text(local_size)} exceeds the device's {most} "
                    f"work-items in dimension {d}")
    if math.prod(locals_) > limits.group_size:
        return (f"local size {_text(local_size)} makes work-groups of {math.prod(locals_)} "
                f"work-items; this kernel takes at most {limits.group_size} on this device")
    if limits.uniform and any(g % loc for g, loc in zip(sizes, locals_)):
        return (f"local size {_text(local_size)} does not divide global size "
                f"{_text(tuple(sizes))}; this program needs uniform work-groups "
                f"(OpenCL C 2.0 and device support lift that)")
    return None


def _text(sizes: tuple[object, ...]) -> str:
    return "(" + ", ".join(str(s) for s in sizes) + ("," if len(sizes) == 1 else "") + ")"
