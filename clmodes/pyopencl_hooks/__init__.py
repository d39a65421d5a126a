"""Existing pyopencl code through clmodes: its programs on managed contexts are obtained,
counted and persisted like clmodes kernels, and its launches follow the modes.

Two entry points of pyopencl are replaced (`builds`, `launches`; why those, and why
they are stable: `entry_points`), once per process, when the first device server is
created (`install()`, idempotent and thread-safe). Importing clmodes changes nothing in
pyopencl. The hooks act only on contexts clmodes manages (`registry`): its own, and those
adopted with `clmodes.client(context=ctx)`. Every other context is left exactly as
pyopencl would have it, except that during a warm its launches are counted and named
(`outside`).
"""

from __future__ import annotations

import logging
import threading

import pyopencl as cl
import pyopencl._cl as _cl

from clmodes.pyopencl_hooks import entry_points
from clmodes.pyopencl_hooks.builds import make_build
from clmodes.pyopencl_hooks.launches import make_enqueue

log = logging.getLogger("clmodes")
_lock = threading.Lock()
_installed: bool | None = None  # None: not tried yet; False: pyopencl moved an entry point


def install() -> bool:
    """Replace pyopencl's build and launch entry points (once); True if they are in
    place. An entry point pyopencl moved is logged as a warning and nothing is replaced."""
    global _installed
    with _lock:
        if _installed is None:
            try:
                entry_points.check()
            except entry_points.EntryPointMoved as error:
                log.warning("pyopencl programs will not go through clmodes: %s", error)
                _installed = False
                return False
            setattr(cl.Program, "build", make_build(cl.Program.build))  # replaced on purpose
            enqueue = make_enqueue(_cl.enqueue_nd_range_kernel)
            _cl.enqueue_nd_range_kernel = enqueue
            cl.enqueue_nd_range_kernel = enqueue
            _installed = True
        return _installed


def installed() -> bool:
    """Are the hooks in place? (introspection)"""
    return bool(_installed)
