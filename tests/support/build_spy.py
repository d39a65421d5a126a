"""The one build spy: counts real `pyopencl.Program.build` calls (still calling the real
one). The `build_spy` fixture (tests/conftest.py) installs it for a test; a subprocess
installs it for good with `BuildSpy().install()`."""

from __future__ import annotations

import threading

import pyopencl as cl

from clmodes.compiler_probe import PROBE_MARK
from clmodes.device_check import CHECK_SOURCE
from support import record_builds


class BuildSpy:
    """`sources`: the source of every build attempt, in order (a program made from a
    binary has an empty source). `built`: the sources of the builds that succeeded (a
    batch that fails is split: the order inside a failed build produced nothing).
    Not counted: the device usability check's one-line kernel (`clmodes.device_check`),
    built once per machine and driver when a store has no verdict yet — a fact about the
    runtime, not a kernel of the workload; nor the compiler's macro probe
    (`clmodes.compiler_probe`), counted in `probes` instead; nor a stored source record
    built again (`support.record_builds`), a store hit kept in `records` instead."""

    def __init__(self) -> None:
        self.records: list[str] = []
        self.sources: list[str] = []
        self.built: list[str] = []
        self.probes = 0
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        return len(self.sources)

    def install(self, monkeypatch=None) -> BuildSpy:
        """Wrap `cl.Program.build`: undone at the test's end with a `monkeypatch`, for the
        rest of the process without one."""
        real_build = cl.Program.build
        spy = self
        record_builds.install()

        def counting_build(program, *args, **kwargs):
            source = program.get_info(cl.program_info.SOURCE)
            if source == CHECK_SOURCE:
                return real_build(program, *args, **kwargs)
            if record_builds.building_a_record():
                with spy._lock:
                    spy.records.append(source)
                return real_build(program, *args, **kwargs)
            if source.startswith(PROBE_MARK):
                with spy._lock:
                    spy.probes += 1
                return real_build(program, *args, **kwargs)
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
