"""The progress line of a warm: drawn on a terminal only, with totals once known."""

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
    assert "kernels 3 compiled" in terminal.getvalue() and terminal.getvalue().endswith("\n")
    assert pipe.getvalue() == ""


def test_progress_shows_done_of_found_once_the_totals_are_known(collector):
    reader = clmodes.StatisticsReader(collector)
    shown = TerminalProgress(reader, "warm", FakeTerminal())
    with shown:
        assert " of " not in shown.line()
        shown.found(keys=5, kernels=26)
        collector.add(clmodes.execution.Counter.KEYS, 2)
        collector.add(clmodes.execution.Counter.KERNELS, 12)
        line = shown.line()
    assert "2 of 5 keys tuned" in line and "12 of 26 kernels obtained" in line
    assert line.endswith(" s") and line.split(", ")[-1][:-2].replace(".", "").isdigit()




def test_the_kernel_total_grows_with_what_tuning_queues_later(collector):
    reader = clmodes.StatisticsReader(collector)
    shown = TerminalProgress(reader, "warm", FakeTerminal())
    waiting = [3]
    with shown:
        shown.found(keys=5, kernels=17)  # what the gathering pass queued
        collector.add(clmodes.execution.Counter.KERNELS, 25)  # the tunes queued 8 more
        assert "25 of 25 kernels obtained" in shown.line()  # never "25 of 17"
        shown.found(keys=5, kernels=17, pending=lambda: waiting[0])
        assert "25 of 28 kernels obtained" in shown.line()
