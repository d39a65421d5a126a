"""A payload is hostile data: every way in found by trying it as an attacker would is
refused in one line, the store untouched, in bounded time and memory. The bundles here are
well-formed containers signed by a trusted key (a stolen key, or a publisher's own
bug): what is refused is refused for what the payload holds."""

import dataclasses
import json
import sqlite3

import pytest

from clmodes.bundle import MAGIC
from clmodes.bundle import payload as payloads
from clmodes.bundle.payload import expected_schema, payload_tables
from clmodes.bundle import BundleError
from clmodes.store import ProbeRow, StoreEntries
from clmodes.store.schema import SCHEMA

from support.bundles import assert_rejected, container, mutated_payload, parts, public
from support.subprocesses import run_python

RECORD = json.dumps({"winner": "a", "measurements": {"a": {"median_s": 1.0}, "b": {"median_s": 2.0}}})


def refused(small_bundle, tmp_path, target, signing_key, statements=(), change=None):
    manifest, body = parts(small_bundle)
    if change:
        change(manifest)
    data = container(manifest, mutated_payload(body, list(statements)), signing_key)
    return assert_rejected(data, tmp_path, target, trusted=[public(signing_key)])


@pytest.mark.parametrize("statements, expected", [
    (["CREATE VIEW v AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
      "SELECT x FROM c"], "unexpected view 'v'"),
    (["CREATE TRIGGER t AFTER INSERT ON tune BEGIN DELETE FROM tune; END"], "unexpected trigger 't'"),
    (["CREATE TABLE extra (x)"], "unexpected table 'extra'"),
    (["CREATE INDEX i ON tune (model)"], "unexpected index 'i'"),
    (["ALTER TABLE kernels ADD COLUMN more TEXT"], "table 'kernels' has unexpected columns"),
    (["UPDATE tune SET format = 'one'"], "tune row 1: format is not a valid integer"),
    (["UPDATE tune SET value = X'41'"], "value is not a valid text (bytes)"),
    (["UPDATE binaries SET units = X'00'"], "units is not a valid text"),
    (["UPDATE tune SET value = '{\"winner\": [\"a\"]}'"], "has no winner"),
    ([f"UPDATE tune SET value = '{RECORD.replace(chr(34) + 'a' + chr(34) + ':', chr(34) + 'c' + chr(34) + ':')}'"],
     "winner 'a' is not among its measured candidates"),
    (["UPDATE tune SET value = '{\"winner\": \"a\", \"roofline\": NaN}'"], "does not parse"),
    (["UPDATE tune SET value = '{\"winner\": \"a\", \"roofline\": 1e999}'"], "not finite"),
    (["UPDATE tune SET value = '" + "[" * 3000 + "]" * 3000 + "'"], "nested too deeply"),
    (["UPDATE kernels SET name = '../../../etc/passwd'"], "is not an OpenCL identifier"),
    (["UPDATE binaries SET exact = 'x' WHERE rowid = 1"], "malformed exact device fingerprint"),
    (["INSERT INTO tune SELECT format, model, tunable, tune_key || 'x', candidates, value FROM tune"],
     "manifest says 4 tune entries, the bundle holds 8"),
    (["DROP TABLE kernels"], "manifest says 2 kernels entries, the bundle holds 0"),
])
def test_hostile_payloads_are_refused(small_bundle, tmp_path, target, signing_key, statements, expected):
    assert expected in refused(small_bundle, tmp_path, target, signing_key, statements)


@pytest.mark.parametrize("change, expected", [
    (lambda m: m["devices"][0].pop("model"), "devices do not match its entries"),
    (lambda m: m["counts"].__setitem__("kernels", 1000), "manifest says 1000 kernels"),
    (lambda m: m.__setitem__("extra", [[[[[[[[[[1]]]]]]]]]]), "nested more than"),
    (lambda m: m.__setitem__("created", ["a list"]), "damaged bundle manifest (created)"),
])
def test_hostile_manifests_are_refused(small_bundle, tmp_path, target, signing_key, change, expected):
    assert expected in refused(small_bundle, tmp_path, target, signing_key, change=change)


def test_a_manifest_nested_3000_levels_is_refused(small_bundle, tmp_path, target):
    """It once ended in a RecursionError traceback."""
    from clmodes.bundle.container import checksum

    _, body = parts(small_bundle)
    header = (b'{"schema": 1, "payload_bytes": %d, "devices": ' % len(body)
              + b"[" * 3000 + b"]" * 3000 + b"}")
    data = (MAGIC + b"%d\n" % len(header) + header
            + checksum(header, body).encode() + b"\n" + body)
    assert "nested" in assert_rejected(data, tmp_path, target)


def test_not_a_database_and_a_damaged_one(small_bundle, tmp_path, target, signing_key):
    manifest, body = parts(small_bundle)
    for bad in (b"not sqlite at all" * 100, body[:1024] + bytes(len(body) - 1024)):
        line = assert_rejected(container(manifest, bad, signing_key), tmp_path, target,
                               trusted=[public(signing_key)])
        assert "payload" in line


def test_a_query_past_the_deadline_is_interrupted(small_bundle, tmp_path):
    """The deadline itself (the schema check keeps a recursive view from ever running, so
    the progress handler is shown on a read that cannot finish in time)."""
    _, body = parts(small_bundle)
    file = tmp_path / "p.sqlite3"
    file.write_bytes(body)
    connection = payloads.open_hostile(file, seconds=0.2)
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        connection.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                           "SELECT count(*) FROM c").fetchone()


def test_payload_tables_follow_the_store_schema():
    """Derived, not copied: every StoreEntries table with its Row's columns, typed as the
    store's SCHEMA types them, and no table the entries do not have."""
    store = sqlite3.connect(":memory:")
    store.executescript(SCHEMA)
    tables = {t.name: t for t in payload_tables()}
    assert set(tables) == set(StoreEntries.empty().tables())
    for name, table in tables.items():
        types = {row[1]: row[2] for row in store.execute(f"PRAGMA table_info({name})")}
        assert [c for c, _ in table.types] == table.row.columns().split(", ")
        assert all(types[c] == t for c, t in table.types)
    assert set(expected_schema()) == {*tables, "blobs"}


@dataclasses.dataclass
class WiderEntries(StoreEntries):
    """StoreEntries as they would be with one more store table carried (`probe` is in the
    store's SCHEMA, not in bundles)."""

    probe: list[ProbeRow] = dataclasses.field(default_factory=list)


def test_a_table_added_to_the_store_is_carried_and_checked_without_a_change_here(
        monkeypatch, tmp_path):
    monkeypatch.setattr(payloads, "StoreEntries", WiderEntries)
    payloads.payload_tables.cache_clear()
    try:
        rows = [ProbeRow(1, "NVIDIA | x | 1CU | 1GiB | OpenCL 3.0", '{"bandwidth_gbps": 1.5}')]
        data = payloads.encode(WiderEntries([], [], [], probe=rows))
        assert payloads.decode(tmp_path, data).probe == rows
        with pytest.raises(BundleError, match="probe row 1: format is not a valid integer"):
            payloads.decode(tmp_path, mutated_payload(data, ["UPDATE probe SET format = 'x'"]))
        older = mutated_payload(data, ["DROP TABLE probe"])  # written before the table existed
        assert payloads.decode(tmp_path, older).probe == []
    finally:
        payloads.payload_tables.cache_clear()


FUZZ = "from support import bundle_fuzz; bundle_fuzz.main()"


def test_fuzzed_containers_and_payloads_in_a_bounded_process(tmp_path):
    """Hypothesis over the container's bytes and the payload's SQL, in a child with an
    address-space limit and a per-case alarm; every case is refused in one line with the
    store unchanged, or (a harmless change) imported; never a traceback or a hang. The
    narrower populations: bytes after a signed bundle and a size limit below it (always
    refused), a PoCL binary's paths and argument info (imported only when well-formed)."""
    out = run_python(FUZZ, tmp_path / "cache", CLMODES_FUZZ_DIR=str(tmp_path))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["refused"] >= report["cases"] * 0.8 and report["cases"] >= 300, report
    assert report["peak_rss_growth_mb"] < 400, report
    assert all(report["populations"].get(name, 0) >= 20 for name in (
        "container", "payload", "tail", "limit", "pocl path", "argument info")), report


def test_row_counts_and_value_sizes_are_bounded(small_bundle, tmp_path, target, signing_key, monkeypatch):
    """The bounds themselves, lowered so that a small bundle crosses them."""
    monkeypatch.setattr(payloads, "MAX_ROWS", 3)
    assert "has 4 tune rows (at most 3)" in refused(small_bundle, tmp_path, target, signing_key)
    monkeypatch.setattr(payloads, "MAX_ROWS", 1000)
    monkeypatch.setattr(payloads, "MAX_TEXT", 5)
    assert "is not a valid text" in refused(small_bundle, tmp_path, target, signing_key)


def binary_bundle(tmp_path, signing_key, binary: bytes, args=None) -> bytes:
    """A bundle, signed by `signing_key`, of one binary for the recorded NVIDIA device
    (the load check never runs it: no such device here) and its kernel `twice`."""
    from clmodes import bundle
    from clmodes.store import Store

    from support.bundles import fixture_device

    device = fixture_device("nvidia-rtx4090-550")
    store = Store(tmp_path / "maker")
    store.put_tune_json(device.fingerprint.model, "op", "k", "c0", {"winner": "w"})
    store.put_binary(device.fingerprint.exact, "batch-x", ["u1"], binary, [("kernel-x", "twice", args)])
    bundle.export(tmp_path / "made.clmodes", store=store, sign=signing_key)
    return (tmp_path / "made.clmodes").read_bytes()


@pytest.mark.parametrize("kernels, program, expected", [
    ({b"twice": [b"/twice/\x01/../../abc.so"]}, b"/program.bc", r"'/twice/\x01/../../abc.so'"),
    ({b"twice": [b"/twice/0-0-0/../ab.so"]}, b"/program.bc", "'/twice/0-0-0/../ab.so'"),
    ({b"twice": [b"/twice/0-0-0//wice.so"]}, b"/program.bc", "is not /twice/<dir>/<file>"),
    ({b"twice": [b"/twice/0-0-0\\twice.so"]}, b"/program.bc", "is not /twice/<dir>/<file>"),
    ({b"twice": [b"/twic3/0-0-0/twice.so"]}, b"/program.bc", "is not /twice/<dir>/<file>"),
    ({b"twice": [b"/twice/0-0-0/.twice.so"]}, b"/program.bc", "is not /twice/<dir>/<file>"),
    ({b"twice": [b"/twice/0-0-0/twice.so"]}, b"/../evil.bc", "'/../evil.bc' where PoCL puts /program.bc"),
])
def test_a_pocl_binary_path_of_any_other_shape_is_refused(tmp_path, target, signing_key,
                                                          kernels, program, expected):
    """Signed by a trusted key, and still refused: PoCL would write these files by their
    paths, and a control byte beside a `..` once hid it from a search for `..`."""
    from support.poclbins import pocl_binary

    data = binary_bundle(tmp_path, signing_key, pocl_binary(kernels, program))
    line = assert_rejected(data, tmp_path, target, trusted=[public(signing_key)])
    assert "not laid out as PoCL writes one" in line and expected in line, line


def test_a_pocl_binary_is_read_where_pocl_reads_it(tmp_path, target, signing_key):
    """A `/program.bc` planted in the header, its content spanning the real first file
    (`/../evil.bc`, which PoCL reads at its fixed offset) must not be where the check
    starts; and a format whose layout is unknown is refused."""
    import struct

    from support.poclbins import pocl_binary, real_shape

    evil = bytearray(pocl_binary(real_shape(), b"/../evil.bc"))
    real_end = 73 + 4 + 11 + 4 + struct.unpack_from("<I", evil, 73 + 4 + 11)[0]
    planted = b"\x0b\x00\x00\x00/program.bc"
    evil[40:40 + len(planted) + 4] = planted + struct.pack("<I", real_end - (40 + len(planted) + 4))
    line = assert_rejected(binary_bundle(tmp_path, signing_key, bytes(evil)), tmp_path, target,
                           trusted=[public(signing_key)])
    assert "'/../evil.bc' where PoCL puts /program.bc" in line, line
    newer = bytearray(pocl_binary(real_shape()))
    newer[16:20] = struct.pack("<I", 42)
    line = assert_rejected(binary_bundle(tmp_path, signing_key, bytes(newer)), tmp_path, target,
                           trusted=[public(signing_key)])
    assert "its format 42 is not one whose layout clmodes checks (8, 9)" in line, line


def test_a_pocl_binary_of_the_shape_pocl_writes_imports(tmp_path, target, signing_key):
    from clmodes import bundle

    from support.bundles import fixture_device
    from support.poclbins import pocl_binary, real_shape

    (tmp_path / "ok.clmodes").write_bytes(binary_bundle(tmp_path, signing_key, pocl_binary(real_shape())))
    report = bundle.install(tmp_path / "ok.clmodes", target, local=[fixture_device("nvidia-rtx4090-550")],
                            trusted_keys=[public(signing_key)])
    assert report["added"]["binaries"] == 1


@pytest.mark.parametrize("args", [
    [], [["a"]], [[1, 2, 3]], [["a", "float*", 1]], [["a", 7, True]], [["a", "", True]],
    [["a", "float*", True, "x"]], [["a", "float*", True], "b"], {"a": 1}, "x", 3,
])
def test_malformed_argument_info_is_refused_at_import(tmp_path, target, signing_key, args):
    """Each passed validation and then ended every later run (an IndexError)."""
    from support.poclbins import pocl_binary, real_shape

    data = binary_bundle(tmp_path, signing_key, pocl_binary(real_shape()), args=args)
    line = assert_rejected(data, tmp_path, target, trusted=[public(signing_key)])
    assert "kernel 'twice' has malformed argument info" in line, line


def test_a_bundle_over_the_size_limit_is_refused_before_it_is_read(small_bundle, tmp_path, target,
                                                                  signing_key, monkeypatch):
    """A 5 GiB file (sparse: nothing of it is ever written) is refused at once by the
    default limit, which the line names; the limit is configurable."""
    huge = tmp_path / "huge.clmodes"
    with open(huge, "wb") as out:
        out.write(small_bundle[:200])
        out.truncate(5 << 30)
    with pytest.raises(BundleError, match=r"huge.clmodes: 5368709120 bytes, over the bundle size "
                                          r"limit of 4 GiB; set \$CLMODES_BUNDLE_MAX_SIZE higher"):
        payloads_install(huge, target)
    monkeypatch.setenv("CLMODES_BUNDLE_MAX_SIZE", "1K")
    line = assert_rejected(small_bundle, tmp_path, target, trusted=[public(signing_key)])
    assert "over the bundle size limit of 1 KiB" in line
    monkeypatch.setenv("CLMODES_BUNDLE_MAX_SIZE", "lots")
    assert "CLMODES_BUNDLE_MAX_SIZE='lots': not a size" in assert_rejected(
        small_bundle, tmp_path, target, trusted=[public(signing_key)])
    monkeypatch.setenv("CLMODES_BUNDLE_MAX_SIZE", "64 MiB")
    (tmp_path / "ok.clmodes").write_bytes(small_bundle)
    assert payloads_install(tmp_path / "ok.clmodes", target, [public(signing_key)])["added"]["tune"] == 2


def payloads_install(path, target, trusted=()):
    from clmodes import bundle

    from support.bundles import fixture_device

    return bundle.install(path, target, local=[fixture_device("nvidia-rtx4090-550")], trusted_keys=trusted)


LARGE_MB, CHUNK_MB = 96, 48
REFUSE_IN_A_CHILD = """
import json, sys, time
from clmodes import bundle
from clmodes.store import Store
from support.bundles import fixture_device
def peak():  # VmHWM: this process's own peak (ru_maxrss would carry its parent's over exec)
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1]) >> 10
before, started = peak(), time.perf_counter()
try:
    bundle.install(sys.argv[1], Store(sys.argv[2]), local=[fixture_device("nvidia-rtx4090-550")],
                   trusted_keys=[sys.argv[3]])
    line = "imported"
except bundle.BundleError as error:
    line = str(error)
print(json.dumps({"line": line, "seconds": time.perf_counter() - started, "growth_mb": peak() - before}))
"""


@pytest.fixture(scope="module")
def large_bundles(tmp_path_factory, signing_key):
    """A 96 MB bundle of program binaries (random bytes for a recorded device: nothing
    loads them), signed by the trusted key, made once, and its hostile copies:
    "tampered" (one payload byte flipped, not re-signed) and "resigned" (a binary's
    sha256 row no longer matching its bytes, re-signed by the trusted key: refused for
    what it holds, after every byte was read)."""
    import os

    from clmodes import bundle
    from clmodes.store import Store

    from support.bundles import fixture_device

    folder = tmp_path_factory.mktemp("large")
    store = Store(folder / "maker")
    exact = fixture_device("nvidia-rtx4090-550").fingerprint.exact
    for number in range(LARGE_MB // CHUNK_MB):
        store.put_binary(exact, f"batch-{number}", [f"u{number}"], os.urandom(CHUNK_MB << 20),
                         [(f"kernel-{number}", "k", None)])
    good = folder / "good.clmodes"
    bundle.export(good, store=store, sign=signing_key)
    store.close()
    tampered = folder / "tampered.clmodes"
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 1
    tampered.write_bytes(data)
    manifest, payload = parts(good.read_bytes())
    del data
    resigned = folder / "resigned.clmodes"
    resigned.write_bytes(container(manifest, mutated_payload(payload, [
        "UPDATE binaries SET sha256 = 'x' || substr(sha256, 2) WHERE batch = 'batch-0'"]), signing_key))
    return {"good": good, "tampered": tampered, "resigned": resigned}


@pytest.mark.parametrize("case, expected", [
    ("tampered", "checksum mismatch"),
    ("resigned", "program binary batch-0 fails its checksum"),
    ("oversized", "over the bundle size limit"),
], ids=["tampered", "resigned", "oversized"])
def test_refusing_a_large_hostile_bundle_holds_no_copy_of_it(large_bundles, signing_key, tmp_path,
                                                            case, expected):
    """A signed 96 MB bundle, refused in a fresh process: one line naming the file, the
    store exactly as it was, in bounded time, and with bounded memory: the checksum is
    streamed over the file and the signature checked over a map of it (refusing a
    tampered bundle once took about five times the file's size); "oversized" is the good
    bundle under a size limit below its size, refused before it is read. (The former
    `ci/bench/bench_bundle_refusal.py`, commit 2fb9fda, measured the same at 500 MB;
    its figures are in docs/trust.md under "Size".)"""
    import subprocess
    import sys

    from clmodes.store import Store

    from support.bundles import snapshot
    from support.subprocesses import environment

    path = large_bundles["good" if case == "oversized" else case]
    extra = {"CLMODES_BUNDLE_MAX_SIZE": str(path.stat().st_size // 2)} if case == "oversized" else {}
    store = Store(tmp_path / "user")
    store.put_tune_json("local model", "mine", "k", "c", {"winner": "local"})
    before = snapshot(store)
    store.close()
    out = subprocess.run([sys.executable, "-c", REFUSE_IN_A_CHILD, str(path), str(tmp_path / "user"),
                          str(public(signing_key))],
                         capture_output=True, text=True, env=environment(**extra), timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    line = report["line"]
    assert expected in line and str(path) in line and "\n" not in line, report
    # "resigned" passes the checksum and the signature, checked over a map of the file
    # (its pages count as resident: about the bundle's size) and is refused at a binary
    # read whole to be hashed (48 MB): 153 MB measured, against about five bundles' worth
    # before the checksum was streamed. The others are refused before the payload is read.
    assert report["growth_mb"] < (2 * LARGE_MB if case == "resigned" else 32), report
    assert report["seconds"] < 60, report
    store = Store(tmp_path / "user")
    assert snapshot(store) == before
    store.close()


def test_a_pocl_binarys_native_objects_name_the_launch_that_loads_each():
    """The load check launches each shipped shared object's kernel at the one shape PoCL
    loads it for; a shape no one-work-group launch reaches is only `dlopen`ed, and the
    generic steps come after every load (a loaded generic function serves later launches)."""
    from clmodes.bundle import loading, poclbin
    from support.poclbins import pocl_binary

    binary = pocl_binary({b"twice": [b"/twice/16-4-1-goffs0-smallgrid/twice.so", b"/twice/8-1-1-smallgrid/twice.so",
                                     b"/twice/16-1-1-goffs0/twice.so", b"/twice/0-0-0-goffs0-smallgrid/twice.so",
                                     b"/twice/0-0-0/twice.so", b"/twice/0-0-0/twice.bc"]})
    found = {o.directory: o for o in poclbin.native_objects(binary)}
    assert sorted(found) == ["0-0-0", "0-0-0-goffs0-smallgrid", "16-1-1-goffs0", "16-4-1-goffs0-smallgrid",
                             "8-1-1-smallgrid"]
    assert found["16-4-1-goffs0-smallgrid"].shape() == poclbin.LaunchShape((16, 4, 1), offset_zero=True)
    assert found["8-1-1-smallgrid"].shape() == poclbin.LaunchShape((8, 1, 1), offset_zero=False)
    assert [found[d].shape() for d in ("16-1-1-goffs0", "0-0-0-goffs0-smallgrid", "0-0-0")] == [None] * 3
    assert found["0-0-0"].generic and found["0-0-0"].symbols()[0] == "_pocl_kernel_twice_workgroup"
    jobs = [loading.Job("e", "a", ()), loading.Job("e", "b", (), shared_objects=({"generic": True},)),
            loading.Job("e", "c", ())]
    assert loading.steps_for(jobs) == [loading.Step(0), loading.Step(1), loading.Step(2), loading.Step(1, True)]
