"""Files clmodes writes whole (bundles, plots) get the mode a plain open() would give."""

import os
import stat

import pytest

from clmodes.atomic import write_replacing


@pytest.fixture
def umask():
    previous = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_follows_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    write_replacing(tmp_path / "ship.clmodes", b"data")
    assert stat.S_IMODE(os.stat(tmp_path / "ship.clmodes").st_mode) == mode


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    target = tmp_path / "plot.svg"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    write_replacing(target, b"new")
    assert target.read_bytes() == b"new" and stat.S_IMODE(os.stat(target).st_mode) == 0o640
