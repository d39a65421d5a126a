"""Argument info read back from a store or a bundle: all of it, or an error."""

import pytest

from clmodes.arginfo import ArgInfo, MalformedArgInfo


def test_rows_round_trip():
    infos = [ArgInfo("a", "float*", True), ArgInfo("n", "real_t", False, resolved=False)]
    assert ArgInfo.from_rows([i.as_row() for i in infos]) == infos
    assert ArgInfo.from_rows(None) is None


@pytest.mark.parametrize("rows", [
    [], [["a", "float*", True], ["b"]], [["a", "float*", True], None], [[1, 2, 3]],
    [["a", "float*", "yes"]], [["a", "float*", True, 0]], "rows", {"a": ["a", "float", False]},
])
def test_malformed_rows_are_refused_never_read_as_a_shorter_list(rows):
    """`from_rows` once skipped the rows it could not read, and a launch indexed past
    the end of what was left."""
    with pytest.raises(MalformedArgInfo):
        ArgInfo.from_rows(rows)


def test_it_is_still_importable_where_it_was():
    from clmodes.launchable import ArgInfo as there

    assert there is ArgInfo
