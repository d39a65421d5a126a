"""The one build spy: counts real `pyopencl.Program.build` calls (still calling the real
one). The `build_spy` fixture (tests/conftest.py) installs it for a test; a subprocess
installs it for good with `BuildSpy().install()`."""

from __future__ import annotations

import threading

import pyopencl as cl


class BuildSpy:
    """`sources`: the source of every build attempt, in order (a program made from a
    binary has an empty source). `built`: the sources of the builds that succeeded (a
    batch that fails is split: the order inside a failed build produced nothing)."""

    def __init__(self) -> None:
        self.sources: list[str] = []
        self.built: list[str] = []
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        return len(self.sources)

    def install(self, monkeypatch=None) -> BuildSpy:
        """Wrap `cl.Program.build`: undone at the test's end with a `monkeypatch`, for the
        rest of the process without one."""
        real_build = cl.Program.build
        spy = self

        def counting_build(program, *args, **kwargs):
            source = _source_of(program)
            with spy._lock:
                spy.sources.append(source)
            result = real_build(program, *args, **kwargs)
            with spy._lock:
                spy.built.append(source)
            return result

        if monkeypatch is None:
            cl.Program.build = counting_build
        else:
            monkeypatch.setattr(cl.Program, "build", counting_build)
        return self


def _source_of(program: cl.Program) -> str:
    """The program's source, without creating its OpenCL program: `get_info` on a source
    program not built yet makes pyopencl create it uncached (its "pre-build attribute
    access" warning), and the build that follows would then bypass clmodes' build hook
    (`clmodes.pyopencl_hooks.builds`) as if the program were made from a binary."""
    state = program.__dict__
    if state.get("_prg") is None and "_source" in state:
        source = state["_source"]
        return source.decode() if isinstance(source, bytes) else source
    return program.get_info(cl.program_info.SOURCE)


class SourceCompileSpy:
    """Every OpenCL program compiled from source in this process, at the lowest Python
    level (`pyopencl._cl._Program.build` of a program of kind SOURCE): what "compiled
    nothing from source" is checked with, whoever asked for the build (clmodes' batches,
    pyopencl's own programs, pyopencl's disk cache on a miss)."""

    def __init__(self) -> None:
        self.sources: list[str] = []
        self._lock = threading.Lock()

    def install(self) -> "SourceCompileSpy":
        """For the rest of the process (a fresh one: `tests/support/subprocesses.py`)."""
        import pyopencl._cl as _cl

        real_build = _cl._Program.build
        spy = self

        def counting_build(program, *args, **kwargs):
            if program.kind() == _cl.program_kind.SOURCE:
                with spy._lock:
                    spy.sources.append(program.get_info(cl.program_info.SOURCE))
            return real_build(program, *args, **kwargs)

        _cl._Program.build = counting_build
        return self
