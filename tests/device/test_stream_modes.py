
import pytest

from clmodes import ProcessMode, ProcessModeOverride, StreamMode, StreamModeOverride


@pytest.mark.parametrize(
    "mode, expected",
    [
        (ProcessMode.EXECUTE, StreamMode.EXECUTE),
        (ProcessMode.COMPILE_ONLY, StreamMode.DISCARD),
        (ProcessMode.COMPILE_AND_AUTOTUNE, StreamMode.DISCARD),
    ],
)
def test_stream_default_follows_process_mode(stream, mode, expected):
    with ProcessModeOverride(mode):
        assert stream.mode is expected
    assert stream.mode is StreamMode.EXECUTE


def test_stream_override_nests_and_restores(stream):
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
        assert stream.mode is StreamMode.DISCARD
        with StreamModeOverride(stream, StreamMode.EXECUTE):
            assert stream.mode is StreamMode.EXECUTE
            with StreamModeOverride(stream, StreamMode.DISCARD):
                assert stream.mode is StreamMode.DISCARD
            assert stream.mode is StreamMode.EXECUTE
        assert stream.mode is StreamMode.DISCARD


def test_stream_override_closed_out_of_order(stream):
    outer = StreamModeOverride(stream, StreamMode.DISCARD).__enter__()
    inner = StreamModeOverride(stream, StreamMode.EXECUTE).__enter__()
    outer.__exit__(None, None, None)
    assert stream.mode is StreamMode.EXECUTE
    inner.__exit__(None, None, None)
    assert stream.mode is StreamMode.EXECUTE  # process default under EXECUTE


def test_override_rejects_wrong_type(stream):
    with pytest.raises(TypeError, match="ProcessMode"):
        ProcessModeOverride("compile_only")
    with pytest.raises(TypeError, match="StreamMode"):
        StreamModeOverride(stream, ProcessMode.EXECUTE)
