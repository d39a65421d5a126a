"""The identity of a program pyopencl builds: what makes two builds the same binary.

A pyopencl program is identified like a clmodes kernel is (`clmodes.kernel`): by its
source and its build options, on one exact device (the store keys binaries by the exact
fingerprint). The options are the ones pyopencl really passes to the compiler
(`Program._process_build_options`: the caller's, `PYOPENCL_BUILD_OPTIONS`, the
platform's), with one exception: pyopencl's own `-I <site-packages>/pyopencl/cl`
include path is written as a placeholder, so that a binary warmed in one virtual
environment loads in another (a bundle). What that path holds (`pyopencl-complex.h`,
`pyopencl-bessel-*.cl`) changes only with pyopencl, so pyopencl's version is part of the
key instead: an upgrade misses and rebuilds, it never loads a binary compiled against
other headers.

Not covered: headers a caller includes from its own `-I` directories (pyopencl's own
disk cache hashes them; a program that includes them is identified by its text only).
"""

from __future__ import annotations

import hashlib
import json

import pyopencl as cl

INCLUDE_PLACEHOLDER = "<pyopencl-include>"


def compiler_options(context: cl.Context, options: object) -> bytes:
    """The options pyopencl passes to the compiler for `options` on `context`."""
    processed, _include_path = cl.Program._process_build_options(
        context, options)  # type: ignore[arg-type]  # whatever the caller gave pyopencl
    return processed


def program_key(source: str | bytes, processed_options: bytes) -> str:
    """The key of one pyopencl program: its source, its options, pyopencl's version."""
    text = source.decode() if isinstance(source, bytes) else source
    include = cl._find_pyopencl_include_path()
    options = processed_options.decode(errors="replace").replace(include, INCLUDE_PLACEHOLDER)
    parts = ["pyopencl-program", cl.VERSION_TEXT, text, options]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def source_digest(text: str) -> str:
    """A program's text alone, digested (16 hex digits, as a clmodes kernel's descriptor
    records it): two texts of one kernel, as a code generator may emit, tell apart by it."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]
