"""File paths inside a PoCL program binary that would leave PoCL's cache.

A PoCL binary (`poclbin` magic) carries its files (program.bc, one shared object per
kernel) with their paths, each a little-endian u32 length then the bytes, and PoCL writes
them under its cache directory when it loads the program. A path with a `..` component
makes PoCL write outside it (seen: a bundle that created a file beside the cache). The
container's layout changes between PoCL versions, so rather than parse one version this
looks for what every version stores: a length-prefixed run of printable bytes that is a
path with a `..` component. Refusing one is safe for real binaries: PoCL names its files
itself, never with `..`. This is a check on top of signing, not instead of it; a binary
of another vendor is not looked at.
"""

from __future__ import annotations

import struct

MAGIC = b"poclbin\x00"
MAX_PATH = 4096


def printable(byte: int) -> bool:
    return 0x20 <= byte <= 0x7E


def escaping_path(binary: bytes) -> str | None:
    """The first stored path with a `..` component, if this is a PoCL binary that has one.
    Only the printable run around each `..` is looked at (found by `bytes.find`: a
    regular expression over the whole binary cost 20 ms per 100 KB)."""
    if not binary.startswith(MAGIC):
        return None
    found = binary.find(b"..")
    while found != -1:
        start, end = found, found + 2
        while start > 0 and printable(binary[start - 1]) and found - start < MAX_PATH:
            start -= 1
        while end < len(binary) and printable(binary[end]) and end - found < MAX_PATH:
            end += 1
        for offset in range(max(start, 4), found + 1):
            (length,) = struct.unpack_from("<I", binary, offset - 4)
            if offset + 2 <= offset + length <= end and length <= MAX_PATH:
                path = binary[offset:offset + length].decode("ascii")
                if ".." in path.split("/"):
                    return path
        found = binary.find(b"..", end)
    return None
