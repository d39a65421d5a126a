"""What a kernel includes is part of its key (issue 24, item 1): edits, nesting, lookup
order, defines naming a header, and hostile include trees."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pyopencl as cl

from clmodes import Kernel

SOURCE = '#include "val.h"\n__kernel void k(__global float* a) { a[0] = VAL; }\n'
_OLD = 1_000_000_000  # a stamp far in the past: the file is cached as a settled one


def write(path: Path, text: str, stamp: int = _OLD) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (stamp, stamp))


def key(folder: Path, source: str = SOURCE, **defines) -> str:
    return Kernel(source, "k", defines=defines, options=["-I", str(folder)]).key


def test_a_kernel_without_includes_has_no_include_digest():
    assert Kernel("__kernel void k() {}", "k").includes is None


def test_an_edit_in_this_process_makes_another_kernel(tmp_path):
    write(tmp_path / "val.h", "#define VAL 1.0f\n")
    before = Kernel(SOURCE, "k", options=["-I", str(tmp_path)])
    assert before.includes is not None and key(tmp_path) == before.key
    write(tmp_path / "val.h", "#define VAL 2.0f\n", _OLD + 1)  # same size, another stamp
    after = Kernel(SOURCE, "k", options=["-I", str(tmp_path)])
    assert after.key != before.key and after != before
    # A variant made now sees the header as it is now, whichever kernel it came from.
    assert before.with_defines(N=1).key == after.with_defines(N=1).key


def test_a_nested_header_counts_and_quotes_look_next_to_the_includer_first(tmp_path):
    write(tmp_path / "inc" / "val.h", '#include "sub/outer.h"\n')
    write(tmp_path / "inc" / "sub" / "outer.h", '#include "inner.h"\n')
    write(tmp_path / "inc" / "sub" / "inner.h", "#define VAL 1.0f\n")
    write(tmp_path / "inc" / "inner.h", "#define VAL 3.0f\n")  # not the one outer.h gets
    first = key(tmp_path / "inc")
    write(tmp_path / "inc" / "inner.h", "#define VAL 4.0f\n", _OLD + 1)
    assert key(tmp_path / "inc") == first
    write(tmp_path / "inc" / "sub" / "inner.h", "#define VAL 2.0f\n", _OLD + 1)
    assert key(tmp_path / "inc") != first


def test_the_first_include_folder_that_has_the_header_wins(tmp_path):
    write(tmp_path / "a" / "val.h", "#define VAL 1.0f\n")
    write(tmp_path / "b" / "val.h", "#define VAL 2.0f\n")
    options = ["-I", str(tmp_path / "a"), f"-I{tmp_path / 'b'}"]
    first = Kernel(SOURCE, "k", options=options).key
    write(tmp_path / "b" / "val.h", "#define VAL 5.0f\n", _OLD + 1)
    assert Kernel(SOURCE, "k", options=options).key == first
    write(tmp_path / "a" / "val.h", "#define VAL 5.0f\n", _OLD + 1)
    assert Kernel(SOURCE, "k", options=options).key != first


def test_a_header_created_earlier_in_the_search_shadows_the_one_found(tmp_path):
    write(tmp_path / "b" / "val.h", "#define VAL 1.0f\n")
    options = ["-I", str(tmp_path / "a"), "-I", str(tmp_path / "b")]
    first = Kernel(SOURCE, "k", options=options).key
    assert Kernel(SOURCE, "k", options=options).key == first
    write(tmp_path / "a" / "val.h", "#define VAL 2.0f\n")
    assert Kernel(SOURCE, "k", options=options).key != first


def test_a_header_named_by_a_define_counts(tmp_path):
    source = "#include HEADER\n__kernel void k(__global float* a) { a[0] = VAL; }\n"
    write(tmp_path / "val.h", "#define VAL 1.0f\n")
    first = key(tmp_path, source, HEADER='"val.h"')
    write(tmp_path / "val.h", "#define VAL 2.0f\n", _OLD + 1)
    assert key(tmp_path, source, HEADER='"val.h"') != first


def test_a_header_named_by_a_define_in_a_header_counts(tmp_path):
    source = '#include "names.h"\n#include HEADER\n' + SOURCE.split("\n", 1)[1]
    write(tmp_path / "names.h", '#define HEADER "val.h"\n')
    write(tmp_path / "val.h", "#define VAL 1.0f\n")
    first = key(tmp_path, source)
    write(tmp_path / "val.h", "#define VAL 2.0f\n", _OLD + 1)
    assert key(tmp_path, source) != first


def test_a_missing_header_is_identity_not_an_error(tmp_path):
    missing = key(tmp_path)  # the build, not the key, reports a missing header
    write(tmp_path / "val.h", "#define VAL 1.0f\n")
    assert key(tmp_path) != missing


def test_hostile_include_trees_end(tmp_path):
    write(tmp_path / "val.h", '#include "val.h"\n#include "loop.h"\n')  # no guards
    write(tmp_path / "loop.h", '#include "val.h"\n')
    os.mkfifo(tmp_path / "fifo.h")  # opening it would block
    (tmp_path / "dir.h").mkdir()
    source = SOURCE + ('#include "fifo.h"\n#include "dir.h"\n#include ""\n#include <\x00>\n'
                       '#include "\udc80.h"\n#include LOOP\n#define LOOP "val.h"\n'
                       '#include UNKNOWN\n')
    assert Kernel(source, "k", options=["-I", str(tmp_path)]).includes is not None


def test_pyopencl_headers_count(tmp_path):
    """A pyopencl whose `pyopencl-complex.h` differs gives another key: a copy of this
    pyopencl (links, but for that one header), imported in a fresh process."""
    real = Path(cl.__file__).parent
    copy = tmp_path / "site" / "pyopencl"
    (copy / "cl").mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name != "cl":
            (copy / entry.name).symlink_to(entry)
    for entry in (real / "cl").iterdir():
        (copy / "cl" / entry.name).symlink_to(entry)
    code = textwrap.dedent("""
        import pyopencl, clmodes
        print(pyopencl.__file__)
        print(clmodes.Kernel('#include <pyopencl-complex.h>\\n__kernel void k() {}', 'k').key)
    """)

    def run() -> list[str]:
        path = os.pathsep.join([str(copy.parent), *sys.path[1:]])
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": path}, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    where, original = run()
    assert where.startswith(str(copy))
    header = copy / "cl" / "pyopencl-complex.h"
    header.unlink()
    shutil.copyfile(real / "cl" / "pyopencl-complex.h", header)
    assert run()[1] == original  # the same text, elsewhere: the same kernel
    with header.open("a") as handle:
        handle.write("\n// another pyopencl\n")
    assert run()[1] != original
