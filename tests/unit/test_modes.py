import threading

import pytest

import clmodes
from clmodes import LaunchMode, ProcessMode, ProcessModeOverride, StreamMode
from clmodes.execution import resolve_launch_mode


@pytest.mark.parametrize(
    "stream_mode, process_mode, verdict",
    [
        (StreamMode.EXECUTE, ProcessMode.EXECUTE, LaunchMode.EXECUTE),
        (StreamMode.EXECUTE, ProcessMode.COMPILE_ONLY, LaunchMode.EXECUTE),
        (StreamMode.EXECUTE, ProcessMode.COMPILE_AND_AUTOTUNE, LaunchMode.EXECUTE),
        (StreamMode.DISCARD, ProcessMode.COMPILE_ONLY, LaunchMode.QUEUE),
        (StreamMode.DISCARD, ProcessMode.COMPILE_AND_AUTOTUNE, LaunchMode.COMPILE),
        (StreamMode.DISCARD, ProcessMode.EXECUTE, LaunchMode.COMPILE),
    ],
)
def test_launch_verdict(stream_mode, process_mode, verdict):
    assert resolve_launch_mode(stream_mode, process_mode) is verdict


def test_default_process_mode_is_execute():
    assert clmodes.process_mode() is ProcessMode.EXECUTE


def test_overrides_nest_most_recent_wins():
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
            assert clmodes.process_mode() is ProcessMode.COMPILE_AND_AUTOTUNE
        assert clmodes.process_mode() is ProcessMode.COMPILE_ONLY
    assert clmodes.process_mode() is ProcessMode.EXECUTE


def test_two_threads_close_out_of_order():
    """A opens, B opens, A closes first: B's mode stays; then B closes: EXECUTE."""
    a_open, b_open, a_closed, b_may_close = (threading.Event() for _ in range(4))
    seen: dict[str, ProcessMode] = {}

    def thread_a():
        with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
            a_open.set()
            b_open.wait(5)
        a_closed.set()

    def thread_b():
        a_open.wait(5)
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
            b_open.set()
            a_closed.wait(5)
            seen["after_a_closed"] = clmodes.process_mode()
            b_may_close.wait(5)
        seen["after_b_closed"] = clmodes.process_mode()

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    a_closed.wait(5)
    b_may_close.set()
    for t in threads:
        t.join(5)
    assert seen["after_a_closed"] is ProcessMode.COMPILE_AND_AUTOTUNE
    assert seen["after_b_closed"] is ProcessMode.EXECUTE


def test_closing_older_override_keeps_newer_one():
    older = ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE).__enter__()
    newer = ProcessModeOverride(ProcessMode.COMPILE_ONLY).__enter__()
    older.__exit__(None, None, None)
    assert clmodes.process_mode() is ProcessMode.COMPILE_ONLY
    newer.__exit__(None, None, None)
    assert clmodes.process_mode() is ProcessMode.EXECUTE


