"""The files inside a PoCL program binary, and the one path shape they may have.

A PoCL binary (`poclbin` magic) carries files that PoCL writes under its cache directory,
by their stored paths, when it loads the program: a path that leaves the cache writes
anywhere the process may (seen: a bundle that created a file beside the cache, once with
a control byte placed to hide a `..` from a search for it). So the binary is parsed,
not searched, and every path must have the shape PoCL itself gives its files (seen in
the binaries of PoCL 3.0 and 3.1, formats 8 and 9; a binary of another format is
refused, since where its files lie is not known):

    /program.bc                               the program's bitcode, first
    /<kernel>/<work-group dir>/<file>         each kernel's files, in its own record

where `<kernel>` is the name of the record holding it (an identifier), the work-group
directory is made of letters, digits, `-` and `_` (`0-0-0`, `16-1-1-goffs0`), and the
file name of those and `.`, not starting with one (`twice.so`). Anything else (another
component, another character, a record that does not add up to the binary's length) is
refused. The layout PoCL shares between these versions: a header whose format is the
u32 at offset 16 and kernel count the u32 at 20; the bitcode file right after it (at 73
or 85); then one record per kernel, starting with its
size (u64), the size of its files (u64, at the record's end), its argument info's size
(u32) and its name; a file is a u32-length path then a u32-length content. A binary of
another vendor is not looked at. This is a check on top of signing, not instead of it.

`native_objects` names each kernel's shared objects with the launch that makes PoCL
load one (`LaunchShape`), for the import's load check (`clmodes.bundle.loading`): PoCL
loads the one whose directory names a launch's specialization (local size, `goffs0`
for a zero global offset, `smallgrid` for a grid of under 65535 items a side), or
`0-0-0`, the generic one, for every launch under `POCL_WORK_GROUP_SPECIALIZATION=0`;
one it does not ship it generates from `/program.bc`.
"""

from __future__ import annotations

import dataclasses
import re
import struct

MAGIC = b"poclbin\x00"
PROGRAM_PATH = b"/program.bc"
HEADER_MAX = 256  # bytes the program's bitcode file starts within (tests' helpers)
MAX_PATH = 4096
VERSION_AT = 16
KERNEL_COUNT_AT = 20
# Where each known format's bitcode file starts: the header's size. PoCL reads the file
# there whatever it is named, so the check reads it there too (a `/program.bc` planted
# earlier, in the header, must not be where parsing starts).
PROGRAM_AT = {8: 73, 9: 85}
NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{0,255}")
DIRECTORY = re.compile(rb"[A-Za-z0-9_-]{1,128}")
FILE = re.compile(rb"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,255}")
GENERIC = "0-0-0"  # the work-group function for any launch, the only one PoCL's generic variant loads
SPECIALIZED = re.compile(r"([0-9]{1,5})-([0-9]{1,5})-([0-9]{1,5})(-goffs0)?(-smallgrid)?")


class PathShapeError(ValueError):
    """A PoCL binary that is not laid out as PoCL writes one (the message says where)."""


@dataclasses.dataclass(frozen=True)
class StoredFile:
    """One file of a PoCL binary: its path and where its content lies."""

    path: bytes
    start: int
    end: int


@dataclasses.dataclass(frozen=True)
class LaunchShape:
    """A launch of one work-group that makes PoCL load a specialized shared object."""

    local: tuple[int, int, int]
    offset_zero: bool


@dataclasses.dataclass(frozen=True)
class NativeObject:
    """A kernel's shared object in a PoCL binary: the kernel (its record's name), the
    work-group directory it lies in, and where its content lies."""

    kernel: str
    directory: str
    start: int
    end: int

    @property
    def generic(self) -> bool:
        return self.directory == GENERIC

    def symbols(self) -> tuple[str, str]:
        """The names PoCL resolves the work-group function by, in its order: a shared
        object without either aborts the run that loads it (PoCL 3.0 and 3.1)."""
        return (f"_pocl_kernel_{self.kernel}_workgroup", f"pocl_kernel_{self.kernel}_workgroup")

    def shape(self) -> LaunchShape | None:
        """The one-work-group launch PoCL loads this specialized object for, None when
        no small launch does (the generic one, a grid wider than `smallgrid`, a local
        size of 0)."""
        found = SPECIALIZED.fullmatch(self.directory)
        if found is None or self.generic or not found.group(5):
            return None
        local = (int(found.group(1)), int(found.group(2)), int(found.group(3)))
        if 0 in local:
            return None
        return LaunchShape(local, offset_zero=bool(found.group(4)))


def native_objects(binary: bytes) -> list[NativeObject]:
    """Every kernel's shared object in a PoCL binary whose layout `files` accepted."""
    found = []
    for stored in files(binary):
        parts = stored.path.split(b"/")
        if len(parts) == 4 and parts[3].endswith(b".so"):
            found.append(NativeObject(parts[1].decode(), parts[2].decode(), stored.start, stored.end))
    return found


def files(binary: bytes) -> list[StoredFile]:
    """Every file of a PoCL binary, each path checked against PoCL's shape, or a
    `PathShapeError`."""
    (version,) = struct.unpack_from("<I", binary, VERSION_AT)
    if version not in PROGRAM_AT:
        known = ", ".join(map(str, sorted(PROGRAM_AT)))
        raise PathShapeError(f"its format {version} is not one whose layout clmodes checks ({known})")
    program, offset = read_file(binary, PROGRAM_AT[version])
    if program.path != PROGRAM_PATH:
        raise PathShapeError(f"file path {shown(program.path)} where PoCL puts /program.bc")
    found = [program]
    (kernels,) = struct.unpack_from("<I", binary, KERNEL_COUNT_AT)
    for _ in range(kernels):
        record, offset = read_record(binary, offset)
        found.extend(record)
    if offset != len(binary):
        raise PathShapeError(f"{len(binary) - offset} bytes after its {kernels} kernel records")
    return found


def read_record(binary: bytes, start: int) -> tuple[list[StoredFile], int]:
    """One kernel's files (each `/<its name>/<dir>/<file>`) and where the next record starts."""
    if start + 24 > len(binary):
        raise PathShapeError("a kernel record past its end")
    size, files_size, _ = struct.unpack_from("<QQI", binary, start)
    name, _ = read_string(binary, start + 20)
    end = start + size
    if not NAME.fullmatch(name) or not start + 24 + len(name) <= end - files_size <= end <= len(binary):
        raise PathShapeError(f"a malformed kernel record at byte {start}")
    found, offset = [], end - files_size
    while offset < end:
        stored, offset = read_file(binary, offset)
        if offset > end:
            raise PathShapeError(f"kernel {name.decode()!r}'s files overrun its record")
        check_kernel_path(stored.path, name)
        found.append(stored)
    return found, end


def check_kernel_path(path: bytes, kernel: bytes) -> None:
    parts = path.split(b"/")
    if not (len(parts) == 4 and parts[0] == b"" and parts[1] == kernel
            and DIRECTORY.fullmatch(parts[2]) and FILE.fullmatch(parts[3])):
        raise PathShapeError(f"file path {shown(path)} is not /{kernel.decode()}/<dir>/<file>")


def read_file(binary: bytes, start: int) -> tuple[StoredFile, int]:
    path, offset = read_string(binary, start, MAX_PATH)
    if not path:
        raise PathShapeError(f"an empty file path at byte {start}")
    content, end = read_length(binary, offset)
    return StoredFile(path, content, end), end


def read_string(binary: bytes, start: int, limit: int = MAX_PATH) -> tuple[bytes, int]:
    begin, end = read_length(binary, start)
    if end - begin > limit:
        raise PathShapeError(f"a {end - begin}-byte name at byte {start}")
    return binary[begin:end], end


def read_length(binary: bytes, start: int) -> tuple[int, int]:
    """(start, end) of the u32-length-prefixed bytes at `start`."""
    if start + 4 > len(binary):
        raise PathShapeError(f"a length past its end at byte {start}")
    (length,) = struct.unpack_from("<I", binary, start)
    if start + 4 + length > len(binary):
        raise PathShapeError(f"a {length}-byte field past its end at byte {start}")
    return start + 4, start + 4 + length


def shown(path: bytes) -> str:
    return repr(path[:80].decode("ascii", "backslashreplace"))


def path_problem(binary: bytes) -> str | None:
    """Why this PoCL binary's files are not laid out as PoCL writes them (None if they
    are, or if this is not a PoCL binary)."""
    if not binary.startswith(MAGIC):
        return None
    try:
        files(binary)
    except PathShapeError as error:
        return str(error)
    except struct.error:
        return "a field past its end"
    return None
