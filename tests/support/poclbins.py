"""PoCL program binaries made in Python, laid out as PoCL 3.0 writes them (format 8:
header, `/program.bc`, one record per kernel with its files at the record's end), so that
a test can give one any file paths without a PoCL device."""

from __future__ import annotations

import struct

HEADER = b"poclbin\x00" + struct.pack("<QII", 0x1234, 8, 0)  # kernel count patched in
BUILD_HASH = b"AB/" + b"C" * 37 + b"\x00"


def string(data: bytes) -> bytes:
    return struct.pack("<I", len(data)) + data


def stored_file(path: bytes, content: bytes) -> bytes:
    return string(path) + string(content)


def record(name: bytes, paths: list[bytes], args: bytes = b"\x00" * 16) -> bytes:
    files = b"".join(stored_file(p, b"\x7fELF" + p) for p in paths)
    middle = string(name) + struct.pack("<II", 1, 0) + bytes(24) + string(b"") + args
    size = 20 + len(middle) + len(files)
    return struct.pack("<QQI", size, len(files), len(args)) + middle + files


def pocl_binary(kernels: dict[bytes, list[bytes]], program_path: bytes = b"/program.bc") -> bytes:
    """A binary whose kernels (name -> file paths) PoCL would write under its cache."""
    header = bytearray(HEADER + struct.pack("<Q", 8) + BUILD_HASH)
    struct.pack_into("<I", header, 20, len(kernels))
    body = stored_file(program_path, b"BC\xc0\xde" + bytes(32))
    return bytes(header) + body + b"".join(record(n, p) for n, p in kernels.items())


def real_shape(name: bytes = b"twice") -> dict[bytes, list[bytes]]:
    """The files PoCL 3.0 and 3.1 write for a kernel launched with two local sizes."""
    return {name: [b"/%s/16-1-1-goffs0-smallgrid/%s.so" % (name, name),
                   b"/%s/0-0-0/%s.so" % (name, name)]}


def replace_file(binary: bytes, path: bytes, content: bytes) -> bytes:
    """A real PoCL binary with the file at `path` holding `content`, every size that
    covers it fixed (what a signer who edits a binary makes)."""
    from clmodes.bundle import poclbin

    start = binary.find(string(poclbin.PROGRAM_PATH), 0, poclbin.HEADER_MAX)
    _, offset = poclbin.read_file(binary, start)
    (kernels,) = struct.unpack_from("<I", binary, poclbin.KERNEL_COUNT_AT)
    out = bytearray(binary[:offset])
    for _ in range(kernels):
        size, files_size, _ = struct.unpack_from("<QQI", binary, offset)
        end = offset + size
        head, files, at = bytearray(binary[offset:end - files_size]), b"", end - files_size
        while at < end:
            stored, at = poclbin.read_file(binary, at)
            body = content if stored.path == path else binary[stored.start:stored.end]
            files += stored_file(stored.path, body)
        struct.pack_into("<QQ", head, 0, len(head) + len(files), len(files))
        out += head + files
        offset = end
    return bytes(out)


ABORTING_CONSTRUCTOR = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void tampered(void) {
    const char *mark = getenv("CLMODES_TEST_CONSTRUCTOR_MARK");
    FILE *f = mark ? fopen(mark, "a") : NULL;
    if (f) { fputs("ran\n", f); fclose(f); }
    abort();
}
"""


NO_WORKGROUP_SYMBOL = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void tampered(void) {
    const char *mark = getenv("CLMODES_TEST_CONSTRUCTOR_MARK");
    FILE *f = mark ? fopen(mark, "a") : NULL;
    if (f) { fputs("ran\n", f); fclose(f); }
}
int unrelated(void) { return 1; }
"""

ABORTING_WORKGROUP = r"""
#include <stdlib.h>
void _pocl_kernel_%(kernel)s_workgroup(void *args, void *context, unsigned long x,
                                        unsigned long y, unsigned long z) { abort(); }
"""


def aborting_shared_object(folder) -> bytes:
    """A shared object whose constructor notes that it ran and aborts (needs `cc`)."""
    return shared_object(folder, "tampered", ABORTING_CONSTRUCTOR)


def shared_object_without_workgroup(folder) -> bytes:
    """A shared object that loads cleanly (its constructor notes that it ran) but lacks
    every kernel's work-group function: PoCL aborts the run that launches it."""
    return shared_object(folder, "nosymbol", NO_WORKGROUP_SYMBOL)


def aborting_workgroup(folder, kernel: str) -> bytes:
    """A shared object whose work-group function for `kernel` aborts when a launch runs it."""
    return shared_object(folder, f"abort-{kernel}", ABORTING_WORKGROUP % {"kernel": kernel})


def shared_object(folder, name: str, source: str) -> bytes:
    """`source` built into a shared object with the C compiler here (a skip without one)."""
    import shutil
    import subprocess

    import pytest

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler to make a tampered shared object")
    (folder / f"{name}.c").write_text(source)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(folder / f"{name}.so"),
                    str(folder / f"{name}.c")], check=True, capture_output=True)
    return (folder / f"{name}.so").read_bytes()
