"""The cost rule (`batch.costs`): a unit whose preparation costs more than batching it
saves builds alone from its own text, unprepared; small units and a source's many
variants still batch.

John the Ripper's kernels (tests/corpus/real/john: ten programs sharing 21 headers through
`-I`, each with its own defines) took 22 s of preparation for a batch that saved 2 s of
builds on PoCL and lost 19 s on Intel (`ci/bench/bench_preparation.py`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clmodes import Kernel
from clmodes.batch import CompilerMacros, DeviceTraits, plan
from clmodes.batch import unit as unit_module
from clmodes.batch.costs import ALL_ENV, PREPARE_S_PER_BYTE, too_costly, unit_bytes
from clmodes.batch.program import merged_typedefs
from clmodes.batch.symbols import raw_typedefs
from clmodes.batch.tokens import tokenize
from clmodes.batch.preprocess import preprocess
from clmodes.batch.unit import Unit
from clmodes.includes import included_files

JOHN = Path(__file__).resolve().parents[1] / "corpus" / "real" / "john"
INTEL = DeviceTraits(
    platform_name="Intel(R) OpenCL", version="OpenCL 3.0 LINUX", opencl_c_version="OpenCL C 3.0",
    extensions=("cl_khr_fp64",), features=(), little_endian=True, image_support=True,
)
SMALL = "__kernel void small{n}(__global float *x) {{ x[get_global_id(0)] *= {n}.0f; }}\n"


def macros_for(options: tuple[str, ...]) -> CompilerMacros:
    return CompilerMacros.of(INTEL, options, {})


def john(name: str, *defines: str) -> list[Kernel]:
    source = (JOHN / name).read_text()
    entries = re.findall(r"__kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+(\w+)", source)
    assert entries, name
    options = ["-I", str(JOHN), "-D__CPU__", "-DPLAINTEXT_LENGTH=55", *defines]
    return [Kernel(source, entry, options=options) for entry in entries]


@pytest.fixture
def counted(monkeypatch):
    """Every full preprocessing, by source."""
    calls: list[str] = []

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(source)
        return preprocess(source, *args, **kwargs)
    monkeypatch.setattr(unit_module, "preprocess", counting)
    monkeypatch.delenv(ALL_ENV, raising=False)
    return calls


def test_a_big_unit_alone_in_its_kind_builds_alone_unprepared(counted):
    kernels = john("pbkdf2_hmac_sha1_kernel.cl", "-DHASH_LOOPS=512") + \
        john("rar_kernel.cl", "-DHASH_LOOPS=16384")
    small = [Kernel(SMALL.format(n=n), f"small{n}") for n in range(3)]
    batches = plan(kernels + small, macros_for, 32, None, fixed_s=0.05)
    alone = [b for b in batches if not b.renamed]
    assert {u.unit.source for b in alone for u in b.units} == {k.source for k in kernels}
    reasons = {u.reason for b in alone for u in b.units}
    assert all(r and "preparing it would cost" in r for r in reasons), reasons
    assert [len(b.units) for b in batches if b.renamed] == [3], "the small units batch"
    assert not [s for s in counted if "pbkdf2" in s or "rar" in s], \
        "a unit kept from the batch for its cost was preprocessed anyway"


def test_its_typedefs_are_read_from_its_headers_unpreprocessed(counted):
    (batch,) = [b for b in plan(john("zip_kernel.cl"), macros_for, 32, None, fixed_s=0.05)
                if b.units[0].unit.source.startswith((JOHN / "zip_kernel.cl").read_text()[:40])]
    aliases = dict(batch.units[0].aliases)
    headers = "".join((JOHN / h).read_text() for h in ("opencl_misc.h", "opencl_sha1.h"))
    assert re.search(r"typedef\s+\w+", headers)
    assert aliases, "no typedef read from the unit's headers"


def test_the_variants_of_one_source_share_its_cost():
    source = (JOHN / "pbkdf2_hmac_sha1_kernel.cl").read_text()
    options = ("-I", str(JOHN))
    one = [Unit(source, (("HASH_LOOPS", str(n)),), options, f"k{n}") for n in range(1)]
    many = [Unit(source, (("HASH_LOOPS", str(n)),), options, f"k{n}") for n in range(400)]
    cost = PREPARE_S_PER_BYTE * unit_bytes(one[0])
    assert cost > 0.3, f"the unit with its headers is {unit_bytes(one[0])} bytes"
    assert too_costly(one, 0.2), "one variant alone pays its whole preparation"
    assert not too_costly(many, 0.2), "400 variants share one preparation"


def test_batch_all_prepares_every_unit(counted, monkeypatch):
    monkeypatch.setenv(ALL_ENV, "1")
    kernels = john("pbkdf2_hmac_sha1_kernel.cl", "-DHASH_LOOPS=512")
    plan(kernels, macros_for, 32, None, fixed_s=0.05)
    assert counted, "with $CLMODES_BATCH_ALL=1 the unit was not prepared"


def test_no_cost_given_prepares_as_before(counted):
    plan(john("pbkdf2_hmac_sha1_kernel.cl", "-DHASH_LOOPS=512") + john("rar_kernel.cl"),
         macros_for, 32, None)
    assert counted


@pytest.mark.parametrize("name", sorted(p.name for p in JOHN.glob("*_kernel.cl")))
def test_typedefs_read_per_file_hold_every_one_the_files_joined_hold(name: str):
    """`merged_typedefs` reads each header once per process. Every typedef one reading of
    the unit and its headers joined finds, it finds with the same type, or as unknown
    (None: never a different guess). Every John program."""
    per_file, joined = _john_typedefs(name)
    wrong = {n: (base, per_file.get(n, "absent")) for n, base in joined.items()
             if per_file.get(n, "absent") not in (base, None)}
    assert not wrong, wrong


def test_a_header_ending_in_a_macro_call_hides_no_typedef_of_the_next():
    """opencl_keccak.h ends with `defkeccak(256)` and no `;`: read joined, the next header's
    `typedef uchar uint8_t;` became part of that statement and was lost. A header starts a
    statement, as the compiler reads it once the macro has expanded."""
    per_file, joined = _john_typedefs("ethereum_kernel.cl")
    assert "uint8_t" not in joined
    assert per_file["uint8_t"] == "uchar"


def _john_typedefs(name: str) -> tuple[dict[str, str | None], dict[str, str | None]]:
    """(read per file, read joined) for a John program's first unit and its headers."""
    (unit,) = {k.unit_key: Unit.of(k) for k in john(name)}.values()
    files, _size = included_files(unit.source, unit.options, dict(unit.defines))
    texts = [unit.render_alone(), *(Path(f).read_text(errors="replace") for f in files)]
    assert len(texts) > 1, "the program includes no header"
    return merged_typedefs(texts), raw_typedefs(tokenize("\n".join(texts)))


def test_a_name_typedefd_differently_in_two_files_is_never_guessed():
    one, other = "typedef uint word_t;\n", "typedef ulong word_t;\ntypedef float real_t;\n"
    assert merged_typedefs([one, other]) == {"word_t": None, "real_t": "float"}
    assert merged_typedefs([one, one]) == {"word_t": "uint"}
    assert merged_typedefs([other, one, one]) == raw_typedefs(tokenize(other + one + one))
