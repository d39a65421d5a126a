"""Reading an `ocloc` binary: its ELF container, and the kernels its device binary holds.

What `ocloc compile` writes (and Intel's GPU driver returns as CL_PROGRAM_BINARIES) is an
ELF64 file of type 0xff04 (an OpenCL executable) with three sections: `BuildOptions`,
`SPIRV Object` and `Intel(R) OpenCL Device Binary`. The device binary is, for the
families `ocloc` 22.43 builds, Intel's patch-token format: a header starting `CTNI`
(magic, version, GFX core, pointer size, kernel count, stepping, patch list size), then per
kernel a header (checksum, hash, the sizes of its name, patch list and heaps) followed
by its name. Newer releases write "zebin" instead, an ELF whose kernels are sections
`.text.<kernel>`; both are read. Every offset is checked: this reads binaries from
bundles, which are hostile until verified (`ValueError` names what is wrong).

Why read them at all: the offline build checks that every kernel of a batch is in the
binary it made (a binary missing one would be a miss on the real device), and
`bundle inspect` says which family a binary is for without a GPU to load it on.
"""

from __future__ import annotations

import dataclasses
import struct

ELF_MAGIC = b"\x7fELF"
OPENCL_EXECUTABLE = 0xFF04  # e_type of an Intel OpenCL program ELF
DEVICE_BINARY = "Intel(R) OpenCL Device Binary"
PATCH_TOKENS = 0x494E5443  # "CTNI"
_PROGRAM_HEADER = struct.Struct("<7I")  # magic version device pointer kernels stepping patchlist
_KERNEL_HEADER = struct.Struct("<IQ7I")  # checksum hash name patchlist kernel general dynamic surface unpadded


@dataclasses.dataclass(frozen=True)
class DeviceBinary:
    """What a device binary says of itself."""

    format: str  # "patch tokens" | "zebin"
    core: int | None  # the GFX core family it is for (patch tokens' `Device`)
    kernels: tuple[str, ...]


def sections(data: bytes) -> dict[str, bytes]:
    """An ELF64 little-endian file's sections by name."""
    if len(data) < 64 or not data.startswith(ELF_MAGIC) or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entsize, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    if entsize != 64 or not 0 < count <= 4096 or names_index >= count or shoff + 64 * count > len(data):
        raise ValueError("its section table lies outside the file")
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(count)]
    for header in headers:
        if header[4] + header[5] > len(data):
            raise ValueError("a section lies outside the file")
    names = headers[names_index]
    table = data[names[4]:names[4] + names[5]]
    found = {}
    for header in headers[1:]:
        if header[0] >= len(table):
            raise ValueError("a section name lies outside the name table")
        end = table.find(b"\0", header[0])
        name = table[header[0]:end if end >= 0 else len(table)].decode("utf-8", "replace")
        found[name] = data[header[4]:header[4] + header[5]]
    return found


def elf_type(data: bytes) -> int:
    return struct.unpack_from("<H", data, 16)[0] if len(data) >= 18 else -1


def device_binary(data: bytes) -> DeviceBinary:
    """The device binary inside an `ocloc` program binary, read."""
    if elf_type(data) != OPENCL_EXECUTABLE:
        raise ValueError("not an Intel OpenCL program ELF (type 0xff04)")
    inner = sections(data).get(DEVICE_BINARY)
    if inner is None:
        raise ValueError(f"it has no {DEVICE_BINARY!r} section")
    if inner.startswith(ELF_MAGIC):
        names = sorted(n[len(".text."):] for n in sections(inner) if n.startswith(".text."))
        return DeviceBinary("zebin", None, tuple(names))
    return _patch_tokens(inner)


def _patch_tokens(data: bytes) -> DeviceBinary:
    if len(data) < _PROGRAM_HEADER.size:
        raise ValueError("its device binary is shorter than its header")
    magic, _version, core, _pointer, count, _stepping, patches = _PROGRAM_HEADER.unpack_from(data)
    if magic != PATCH_TOKENS:
        raise ValueError("its device binary is neither patch tokens nor zebin")
    offset = _PROGRAM_HEADER.size + patches
    kernels = []
    for _ in range(count):
        if offset + _KERNEL_HEADER.size > len(data):
            raise ValueError("a kernel header lies outside the device binary")
        _sum, _hash, name_size, patch_size, *heaps = _KERNEL_HEADER.unpack_from(data, offset)
        start = offset + _KERNEL_HEADER.size
        end = start + name_size + sum(heaps[:4]) + patch_size
        if end > len(data):
            raise ValueError("a kernel lies outside the device binary")
        kernels.append(data[start:start + name_size].split(b"\0")[0].decode("utf-8", "replace"))
        offset = end
    return DeviceBinary("patch tokens", core, tuple(kernels))
