"""Finding and naming devices: every platform's devices in a stable order, and selectors.

Kept apart from `clmodes.device` (what a device *is*: its description and fingerprints,
plain data that recorded GPUs share) because this part talks to the ICD loader: it
registers Intel's CPU runtime from PyPI first (`clmodes.icd`), lists each platform once,
and ranks devices so that the first is the one a user would pick. Whether a device can
build is `clmodes.device_check`'s question, asked by `clmodes.selection`.
"""

from __future__ import annotations


import pyopencl as cl

from clmodes import settings
from clmodes.device import Device, DeviceDescription
from clmodes.errors import NoDeviceError
from clmodes.icd import register_pypi_runtimes

INSTALL_HINT = (
    "install an OpenCL runtime, e.g. `pip install 'clmodes[cpu]'` "
    "(PoCL and Intel's CPU runtime, from PyPI), or your GPU vendor's driver"
)

_devices: list[Device] | None = None


def _rank(device: cl.Device) -> int:
    """GPUs first, then accelerators, then CPUs, simulators last: the default device
    (the first) is then the one a user would pick, whatever order the ICD loader reports."""
    if "oclgrind" in device.platform.name.lower():
        return 4
    kind = device.type
    if kind & cl.device_type.GPU:
        return 0
    if kind & cl.device_type.ACCELERATOR:
        return 1
    return 2 if kind & cl.device_type.CPU else 3


def devices() -> list[Device]:
    """Every OpenCL device on every platform, in a stable order: by kind (GPU, accelerator,
    CPU, simulator), then platform name and version, then the platform's own order. A
    platform the ICD loader lists twice (one library named by two .icd files) is listed
    once. Intel's CPU runtime from PyPI is registered first (`clmodes.icd`)."""
    global _devices
    if _devices is None:
        register_pypi_runtimes()
        found = []
        for platform in _distinct(_platforms()):
            try:
                listed = platform.get_devices()
            except cl.Error:
                continue  # a platform with no devices
            for position, device in enumerate(listed):
                key = (_rank(device), platform.name, platform.version, position)
                found.append((key, device))
        found.sort(key=lambda item: item[0])
        _devices = [Device(i, d, DeviceDescription.of(d)) for i, (_, d) in enumerate(found)]
    return list(_devices)


def pyopencl_ctx(device: Device) -> str:
    """The `PYOPENCL_CTX` value (`platform:device`, by position) that makes pyopencl's
    `create_some_context` pick `device` in this process and in a program under
    `clmodes run` (the same ICD loader, set up the same way).

    Why clmodes' own index is not pyopencl's: clmodes ranks devices so that its first is
    the one a user would pick (GPUs first, simulators last), and `$CLMODES_DEVICE`,
    `--device` and a warm's workload processes rely on that order; pyopencl numbers
    platforms in the ICD loader's order, which depends on the loader and on the names of
    the `.icd` files it reads (registering Intel's runtime moves the platforms after it).
    A name does not do either: both PoCLs here call their platform "Portable Computing
    Language", and pyopencl takes the last platform a name matches. So `clmodes devices`
    gives, beside its own index, the positions pyopencl counts."""
    platform = device.cl_device.platform
    platforms = _platforms()
    listed = platform.get_devices()
    return f"{platforms.index(platform)}:{listed.index(device.cl_device)}"


def _platforms() -> list[cl.Platform]:
    try:
        return list(cl.get_platforms())
    except cl.Error:
        return []


def _distinct(platforms: list[cl.Platform]) -> list[cl.Platform]:
    """Platforms in order, each once. One library registered twice gives the same platform
    twice (one handle), or two platforms that report the same name, vendor, version and
    devices: either is one runtime to the user. Two identical GPUs are two devices of one
    platform, so they are never merged by this."""
    seen: set[object] = set()
    kept = []
    for platform in platforms:
        try:
            identity = (platform.name, platform.vendor, platform.version,
                        tuple((d.name, d.driver_version) for d in platform.get_devices()))
        except cl.Error:
            identity = (platform.name, platform.vendor, platform.version, ())
        if platform.int_ptr in seen or identity in seen:
            continue
        seen.update((platform.int_ptr, identity))
        kept.append(platform)
    return kept


def select(selector: object = None) -> Device:
    """Pick a device: a `Device`, an index, a substring of its label ("platform / device")
    or of its normalized vendor ("pocl", "nvidia"), else `$CLMODES_DEVICE`, else the first.
    Usability is not asked here: `clmodes.selection` passes over devices that cannot build."""
    return candidates(selector)[0]


def candidates(selector: object = None) -> list[Device]:
    """The devices a selector names, in order (a label substring may name several); with
    no selector and no `$CLMODES_DEVICE`, every device."""
    found = devices()
    if not found:
        raise NoDeviceError(f"no OpenCL platform found; {INSTALL_HINT}")
    if isinstance(selector, Device):
        return [selector]
    if isinstance(selector, cl.Device):
        for device in found:
            if device.cl_device == selector:
                return [device]
    if selector is None:
        selector = settings.DEVICE.get()
    if selector is None:
        return found
    return _match(found, selector)


def explicit(selector: object) -> bool:
    """Does the selection name a device (an argument or `$CLMODES_DEVICE`)?"""
    return selector is not None or settings.DEVICE.get() is not None


def _match(found: list[Device], selector: object) -> list[Device]:
    text = str(selector).strip()
    listing = "; ".join(f"{d.index}: {d.label}" for d in found)
    if isinstance(selector, int) or text.isdigit():
        index = int(text)
        if 0 <= index < len(found):
            return [found[index]]
        raise NoDeviceError(f"no OpenCL device with index {index}; found {listing}")
    matches = [d for d in found if text.lower() in f"{d.label} / {d.fingerprint.vendor}".lower()]
    if not matches:
        # Devices were found: the selector is what is wrong, not the machine (a typo,
        # `--device intl`, was told to install an OpenCL runtime).
        raise NoDeviceError(
            f"no OpenCL device matches {text!r}; found {listing}; name one by its index or "
            "by a part of its label"
        )
    return matches
