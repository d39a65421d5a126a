"""Warm start: program binaries in the store, clmodes.warm(), progress."""

import io


import clmodes
from clmodes.progress import TerminalProgress



class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_only(collector):
    reader = clmodes.StatisticsReader(collector)
    terminal, pipe = FakeTerminal(), io.StringIO()
    with TerminalProgress(reader, "warm", terminal, interval=0.01):
        collector.add(clmodes.execution.Counter.COMPILED, 3)
    with TerminalProgress(reader, "warm", pipe, interval=0.01):
        pass
    assert "3 kernels compiled" in terminal.getvalue() and terminal.getvalue().endswith("\n")
    assert pipe.getvalue() == ""


