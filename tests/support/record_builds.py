"""Which builds are stored source records built again (`clmodes.source_records`: PoCL with
its kernel cache on), for the build spies: a store hit PoCL's cache serves, not a compile
of new work. `clmodes.building.build_source(..., stored=True)` (and `build_exact`, a pyopencl program's) names them; this wraps it,
once per process and transparently, to mark the thread while it runs."""

from __future__ import annotations

import threading

_state = threading.local()
_lock = threading.Lock()
_installed = False


def install() -> None:
    global _installed
    from clmodes import building

    with _lock:
        if _installed:
            return
        building.build_source = _marking(building.build_source)
        building.build_exact = _marking(building.build_exact)  # a pyopencl program's record
        _installed = True


def _marking(real):
    def marking(*args, stored=False, **kwargs):
        _state.on = stored
        try:
            return real(*args, stored=stored, **kwargs)
        finally:
            _state.on = False

    return marking


def building_a_record() -> bool:
    """Whether this thread is building a stored source record now."""
    return getattr(_state, "on", False)
