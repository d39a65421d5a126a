"""A spy on compiles from source at the lowest Python level, whoever asked for them."""

from __future__ import annotations

import threading

import pyopencl as cl

from support import record_builds


class SourceCompileSpy:
    """Every OpenCL program compiled from source in this process, at the lowest Python
    level (`pyopencl._cl._Program.build` of a program of kind SOURCE): what "compiled
    nothing from source" is checked with, whoever asked for the build (clmodes' batches,
    pyopencl's own programs, pyopencl's disk cache on a miss).

    Why not `BuildSpy` for pyopencl's own programs: it asks the program for its source
    before building it, and on a source program not built yet that makes pyopencl create
    the OpenCL program uncached ("pre-build attribute access"), so when it wraps clmodes'
    build hook the build is no longer a source build to the hook and bypasses it."""

    def __init__(self) -> None:
        self.sources: list[str] = []
        # Stored source records built again (`clmodes.source_records`: PoCL with its kernel
        # cache on): a store hit, served by PoCL's cache; not a compile of new work.
        self.records: list[str] = []
        self._lock = threading.Lock()

    def install(self) -> "SourceCompileSpy":
        """For the rest of the process (a fresh one: `tests/support/subprocesses.py`)."""
        import pyopencl._cl as _cl

        real_build = _cl._Program.build
        spy = self
        record_builds.install()

        def counting_build(program, *args, **kwargs):
            if program.kind() == _cl.program_kind.SOURCE:
                kept = spy.records if record_builds.building_a_record() else spy.sources
                with spy._lock:
                    kept.append(program.get_info(cl.program_info.SOURCE))
            return real_build(program, *args, **kwargs)

        _cl._Program.build = counting_build
        return self
