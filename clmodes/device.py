"""Device discovery, selection and fingerprints.

A fingerprint is computed from a `DeviceDescription` (plain data) rather than from a live
`pyopencl.Device`, so that recorded descriptions of GPUs this project cannot reach (AMD,
Intel and NVIDIA boards, as public `clinfo` dumps show them; see tests/fixtures/devices)
fingerprint exactly as the real devices would.

Two strengths: `model` identifies the hardware (tune results transfer between machines
with the same board), `exact` adds the driver and platform versions (program binaries
only transfer when the compiler that produced them is the same).

`model` is `vendor | name | compute units | memory | OpenCL version`:
- vendor is the *runtime's* vendor, normalized (AMD, Intel, NVIDIA, PoCL, Oclgrind, ...):
  PoCL and Oclgrind name themselves whatever CPU they run on (PoCL reports the CPU maker,
  e.g. "AuthenticAMD", as its device vendor); Intel's CPU runtime is Intel even on an AMD CPU.
- name is the AMD board name where the driver reports one, followed by the device name in
  parentheses when they differ ("AMD Radeon RX 7900 XTX (gfx1100)"): the board name is what
  people recognise, the gfx target is what code is compiled for, and several targets share
  one generic board name ("AMD Radeon Graphics" on APUs).
- memory is rounded to whole GiB, so small driver-to-driver differences in what a board
  reports (NVIDIA reserves a little more or less) do not change the model. A CPU device's
  memory is "host memory": it is the host's RAM, not a property of the device, and PoCL
  reports a share of the memory *free* when it starts (3 GiB in one process, 5 GiB in the
  next on one machine), which would make one CPU look like a new model every run.
- OpenCL version is "OpenCL X.Y" only, without the vendor's suffix.

`exact` is `model | driver <driver version> | <platform version>`. Every field has runs of
whitespace collapsed and ends stripped (runtimes pad: "OpenCL 3.0 NEO ", PoCL's double
space), and "|" is replaced by "/" inside a field, so the strings are deterministic and
`Fingerprint.fields()` can always split them back into named fields.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import re
from functools import cached_property

import pyopencl as cl


# Runtimes that are not their device's maker: matched in the platform name, then the vendor.
_RUNTIMES = (
    ("portable computing language", "PoCL"),
    ("pocl", "PoCL"),
    ("oclgrind", "Oclgrind"),
)

# Device vendors, matched as whole words (or a prefix) in the vendor string.
_VENDORS = (
    ("nvidia", "NVIDIA"),
    ("advanced micro devices", "AMD"),
    ("authenticamd", "AMD"),
    ("amd", "AMD"),
    ("intel", "Intel"),
    ("genuineintel", "Intel"),
    ("apple", "Apple"),
    ("arm", "ARM"),
    ("qualcomm", "Qualcomm"),
)


def _clean(text: object) -> str:
    """One fingerprint field: whitespace runs collapsed, ends stripped, no field separator."""
    return " ".join(str(text).split()).replace("|", "/")


def normalize_vendor(platform_name: str, vendor: str) -> str:
    """The runtime's vendor. A CPU runtime (PoCL, Oclgrind) names itself, not the CPU maker."""
    for text in (platform_name, vendor):
        lowered = _clean(text).lower()
        for needle, label in _RUNTIMES:
            if needle in lowered:
                return label
    lowered = _clean(vendor).lower()
    for needle, label in _VENDORS:
        if re.search(rf"\b{re.escape(needle)}\b", lowered) or lowered.startswith(needle):
            return label
    return _clean(vendor) or "unknown"


def _opencl_version(version: str) -> str:
    """The "OpenCL X.Y" a device version starts with ("OpenCL 3.0 CUDA"); else it, cleaned."""
    text = _clean(version)
    match = re.match(r"OpenCL\s+(\d+\.\d+)", text)
    return f"OpenCL {match.group(1)}" if match else text


def _type_name(kind: int) -> str | None:
    """One of GPU, ACCELERATOR, CPU; None for anything else (Oclgrind sets every bit)."""
    names = [n for n in ("GPU", "ACCELERATOR", "CPU") if kind & getattr(cl.device_type, n)]
    return names[0] if len(names) == 1 else None


def _memory_label(size: int) -> str:
    """Whole GiB (half up), or whole MiB below 1 GiB."""
    size = int(size)
    if size >= 2**30:
        return f"{(size + 2**29) // 2**30}GiB"
    return f"{size // 2**20}MiB"


def _device_name(d: "DeviceDescription") -> str:
    name, board = _clean(d.name), _clean(d.board_name or "")
    if not board:
        return name
    if not name or board == name:
        return board
    return f"{board} ({name})"


CL_DEVICE_ID_INTEL = 0x4251  # cl_intel_device_attribute_query; pyopencl has no name for it
_INTEL_QUERY = "cl_intel_device_attribute_query"


def intel_device_id(device: cl.Device) -> int | None:
    """The PCI device ID of an Intel GPU (`ask_intel_device_id`); None for any other
    device. Not asked of a CPU (Intel's CPU runtime answers too, but only a GPU's ID picks
    offline binaries), because every process describes every device at its start."""
    try:
        if not device.type & cl.device_type.GPU:
            return None
    except cl.Error:
        return None
    return ask_intel_device_id(device)


def ask_intel_device_id(device: cl.Device) -> int | None:
    """CL_DEVICE_ID_INTEL (`cl_intel_device_attribute_query`), asked through the ICD
    loader with ctypes since pyopencl does not know the query; None on a driver without
    the extension (never asked: drivers are not written for queries they lack), or if
    the loader cannot be reached. The loader is opened by its soname: finding it with
    `ctypes.util.find_library` runs `ldconfig` (14 ms), only where the soname fails."""
    try:
        if _INTEL_QUERY not in device.extensions:
            return None
    except cl.Error:
        return None
    loader = _opencl_loader()
    if loader is None:
        return None
    value = ctypes.c_uint32(0)
    try:
        status = loader.clGetDeviceInfo(ctypes.c_void_p(device.int_ptr), ctypes.c_uint32(CL_DEVICE_ID_INTEL),
                                        ctypes.c_size_t(4), ctypes.byref(value), None)
    except AttributeError:
        return None
    return int(value.value) if status == 0 and value.value else None


@functools.lru_cache(maxsize=1)
def _opencl_loader() -> ctypes.CDLL | None:
    """The ICD loader pyopencl uses (its soname first; `find_library` where that fails)."""
    import ctypes.util

    try:
        return ctypes.CDLL("libOpenCL.so.1")
    except OSError:
        pass
    found = ctypes.util.find_library("OpenCL")
    try:
        return ctypes.CDLL(found) if found else None
    except OSError:
        return None


@dataclasses.dataclass(frozen=True)
class DeviceDescription:
    """What a fingerprint is made of: values as `clinfo` reports them."""

    platform_name: str
    platform_version: str
    vendor: str
    name: str
    compute_units: int
    global_mem_size: int
    version: str
    driver_version: str
    board_name: str | None = None  # CL_DEVICE_BOARD_NAME_AMD, where the driver has it
    device_type: str | None = None  # "GPU", "CPU", "ACCELERATOR"; None: not recorded
    # The PCI device ID, where the driver tells it (Intel's GPU driver: CL_DEVICE_ID_INTEL,
    # or "[0x9a49]" in the name of older releases). Not part of any fingerprint: it only
    # says which family a binary built offline must be for (`clmodes.offline.fit`).
    device_id: int | None = None

    @classmethod
    def of(cls, device: cl.Device) -> "DeviceDescription":
        board = None
        if "cl_amd_device_attribute_query" in device.extensions:  # never ask other drivers
            try:
                board = device.board_name_amd
            except (cl.Error, AttributeError):
                board = None
        return cls(
            platform_name=device.platform.name.strip(),
            platform_version=device.platform.version.strip(),
            vendor=device.vendor.strip(),
            name=device.name.strip(),
            compute_units=int(device.max_compute_units),
            global_mem_size=int(device.global_mem_size),
            version=device.version.strip(),
            driver_version=device.driver_version.strip(),
            board_name=(board or "").strip() or None,
            device_type=_type_name(device.type),
            device_id=intel_device_id(device),
        )


@dataclasses.dataclass(frozen=True)
class Fingerprint:
    """Stable strings identifying a device model, and an exact device + driver."""

    vendor: str
    model: str
    exact: str

    @classmethod
    def of(cls, d: DeviceDescription) -> "Fingerprint":
        vendor = normalize_vendor(d.platform_name, d.vendor)
        fields = [
            vendor,
            _device_name(d),
            f"{int(d.compute_units)}CU",
            "host memory" if _clean(d.device_type or "").upper() == "CPU"
            else _memory_label(d.global_mem_size),
            _opencl_version(d.version),
        ]
        model = " | ".join(fields)
        exact = " | ".join(
            [model, _clean(f"driver {d.driver_version}"), _clean(d.platform_version)]
        )
        return cls(vendor=vendor, model=model, exact=exact)

    def fields(self) -> dict[str, str]:
        """Named parts, so a mismatch can say which field differed."""
        return fingerprint_fields(self.exact)


FIELD_NAMES = ("vendor", "name", "compute_units", "memory", "opencl", "driver", "platform")
MODEL_FIELDS = 5  # the first five fields are the model; exact adds driver and platform


def fingerprint_fields(fingerprint: str) -> dict[str, str]:
    """A model or exact fingerprint string split back into named fields."""
    return dict(zip(FIELD_NAMES, fingerprint.split(" | ")))


def model_of(exact: str) -> str:
    """The model fingerprint inside an exact one."""
    return " | ".join(exact.split(" | ")[:MODEL_FIELDS])


def differing_fields(a: str, b: str) -> list[str]:
    """Names of the fields in which two fingerprints differ."""
    fa, fb = fingerprint_fields(a), fingerprint_fields(b)
    return [name for name in FIELD_NAMES if name in fa and name in fb and fa[name] != fb[name]]


@dataclasses.dataclass(frozen=True, eq=False)
class Device:
    """One OpenCL device, as `clmodes.devices()` lists it."""

    index: int
    cl_device: cl.Device
    description: DeviceDescription

    @property
    def name(self) -> str:
        return self.description.name

    @property
    def platform_name(self) -> str:
        return self.description.platform_name

    @property
    def label(self) -> str:
        """`"platform name / device name"`, what `$CLMODES_DEVICE` substrings match."""
        return f"{self.platform_name} / {self.name}"

    @cached_property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint.of(self.description)

    @cached_property
    def max_work_group_size(self) -> int:
        """Asked of the driver once: launch paths check it on every call."""
        return int(self.cl_device.max_work_group_size)

    def __repr__(self) -> str:
        return f"<clmodes.Device {self.index}: {self.label}>"
