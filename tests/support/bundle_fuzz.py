"""The bundle fuzz, run in a child process (`tests/unit/test_bundle_hostile.py`) so that
its bounds are real: an address-space limit on the whole process, an alarm per case, and
the peak resident memory reported. `main()` prints one JSON line of counts.

Each case is a signed, well-formed-or-not bundle: the container's bytes mutated
(flips, cuts, insertions, a rewritten length, a generated manifest with its checksum
and signature recomputed), or the payload's database changed by generated SQL (views,
triggers, extra tables and indexes, columns added, wrong types, huge and non-finite
numbers, deep JSON, rows added or dropped) and re-wrapped and re-signed. Every case must
be refused in one line naming the file with the store unchanged, or import cleanly."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

CASE_SECONDS = 10
ADDRESS_SPACE = 4 << 30


class CaseTimeout(BaseException):
    """A case ran past its alarm (a BaseException: nothing under test may swallow it)."""


def _alarm(signum, frame):
    raise CaseTimeout(f"a case ran more than {CASE_SECONDS} s")


TABLES = {"tune": ["format", "model", "tunable", "tune_key", "candidates", "value"],
          "binaries": ["exact", "batch", "units", "sha256"],
          "kernels": ["exact", "kernel_key", "batch", "name", "args"],
          "blobs": ["sha256", "data"]}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["winner", "measurements", "roofline", "a", "b", "median_s"]), inner, max_size=3),
    max_leaves=12)


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


sql_values = st.one_of(
    st.integers(-2**63, 2**63 - 1).map(str), st.sampled_from(["9e999", "-9e999", "0.5", "NULL"]),
    st.binary(max_size=16).map(lambda b: f"X'{b.hex()}'"),
    st.text(max_size=20).map(quoted),
    json_values.map(lambda v: quoted(json.dumps(v))),
    st.integers(1, 3000).map(lambda n: quoted("[" * n + "]" * n)),
    st.sampled_from(["'{\"winner\": \"w1\"}'", "'{\"winner\": \"w1\", \"measurements\": {}}'",
                     "'../../x'", "'[\"u1\"]'", "zeroblob(100000)", "randomblob(64)"]),
)


@st.composite
def statements(draw) -> str:
    table = draw(st.sampled_from(sorted(TABLES)))
    column = draw(st.sampled_from(TABLES[table]))
    return draw(st.sampled_from([
        f"UPDATE {table} SET {column} = {draw(sql_values)}",
        f"UPDATE {table} SET {column} = {draw(sql_values)} WHERE rowid = 1",
        f"DELETE FROM {table}",
        f"DROP TABLE {table}",
        f"ALTER TABLE {table} ADD COLUMN extra{draw(st.integers(0, 3))}",
        f"CREATE TABLE extra{draw(st.integers(0, 3))} (x)",
        f"CREATE INDEX ix{draw(st.integers(0, 3))} ON {table} ({column})",
        f"CREATE VIEW v{draw(st.integers(0, 3))} AS WITH RECURSIVE c(x) AS "
        "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
        f"CREATE TRIGGER t{draw(st.integers(0, 3))} AFTER UPDATE ON {table} BEGIN DELETE FROM {table}; END",
        f"INSERT INTO {table} SELECT * FROM {table} WHERE rowid = 1",
        f"INSERT OR IGNORE INTO {table} ({column}) VALUES ({draw(sql_values)})",
    ]))


class Fuzz:
    def __init__(self, folder: Path) -> None:
        from clmodes import bundle
        from clmodes.store import Store

        from support.bundles import fill, fixture_device, parts
        from support.poclbins import pocl_binary, real_shape

        self.folder, self.cases, self.refused, self.imported = folder, 0, 0, 0
        self.populations: dict[str, int] = {}
        self.key = folder / "fuzz.key"
        bundle.keygen(self.key)
        store = Store(folder / "source")
        fill(store, fixture_device("nvidia-rtx4090-550"))
        fill(store, fixture_device("amd-rx7900xtx-rocm-3602"))
        self.pocl = pocl_binary(real_shape())
        store.put_binary(fixture_device("nvidia-rtx4090-550").fingerprint.exact, "batch-pocl", ["u1"],
                         self.pocl, [("kernel-pocl", "twice", [["a", "float*", True], ["s", "float", False]])])
        bundle.export(folder / "good.clmodes", store=store, sign=self.key)
        self.good = (folder / "good.clmodes").read_bytes()
        self.manifest, self.payload = parts(self.good)
        self.local = [fixture_device("nvidia-rtx4090-550")]

    def check(self, data: bytes, population: str = "", must_refuse: bool = False,
              imported_ok=None) -> None:
        """One case, bounded: refused in one line with the store as it was, or imported
        (never, with `must_refuse`; and then, if given, `imported_ok(entries)` holds)."""
        from clmodes import bundle
        from clmodes.bundle import BundleError
        from clmodes.store import Store

        from support.bundles import public

        self.cases += 1
        self.populations[population] = self.populations.get(population, 0) + 1
        path = self.folder / "case.clmodes"
        path.write_bytes(data)
        target = Store(self.folder / f"target-{self.cases}")
        target.put_tune_json("local model", "mine", "k", "c", {"winner": "local"})
        before = target.entries()
        signal.alarm(CASE_SECONDS)
        try:
            bundle.install(path, target, local=self.local, trusted_keys=[public(self.key)])
            bundle.inspect(path, local=self.local)
            assert not must_refuse, f"{population}: a case that must be refused imported"
            assert imported_ok is None or imported_ok(target.entries()), f"{population}: imported wrongly"
            self.imported += 1
        except BundleError as error:
            message = str(error)
            assert "\n" not in message and str(path) in message, message
            assert target.entries() == before, message
            self.refused += 1
        finally:
            signal.alarm(0)
            target.close()

    def with_binary(self, binary: bytes) -> bytes:
        """The good bundle with its PoCL binary replaced (its sha256 rows kept true),
        re-signed."""
        import hashlib

        from support.bundles import mutated_payload

        old, new = hashlib.sha256(self.pocl).hexdigest(), hashlib.sha256(binary).hexdigest()
        payload = mutated_payload(self.payload, [
            f"UPDATE blobs SET data = X'{binary.hex()}', sha256 = '{new}' WHERE sha256 = '{old}'",
            f"UPDATE binaries SET sha256 = '{new}' WHERE sha256 = '{old}'"])
        return self.wrapped(self.manifest, payload)

    def wrapped(self, manifest: dict, payload: bytes) -> bytes:
        from support.bundles import container

        return container(manifest, payload, self.key)


def run(fuzz: Fuzz, examples: int) -> None:
    from support.bundles import mutated_payload

    quick = settings(max_examples=examples, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))
    # The narrower populations (a signed bundle's tail, its size limit, a PoCL binary's
    # paths, argument info) need fewer cases to cover what they vary.
    narrow = settings(quick, max_examples=max(20, examples // 4))

    @quick
    @given(st.data())
    def containers(data):
        good = fuzz.good
        kind = data.draw(st.sampled_from(["flip", "cut", "insert", "length", "manifest", "garbage"]))
        if kind == "flip":
            position = data.draw(st.integers(0, len(good) - 1))
            case = bytearray(good)
            case[position] ^= data.draw(st.integers(1, 255))
            fuzz.check(bytes(case), "container")
        elif kind == "cut":
            fuzz.check(good[:data.draw(st.integers(0, len(good) - 1))], "container")
        elif kind == "insert":
            position = data.draw(st.integers(0, len(good)))
            fuzz.check(good[:position] + data.draw(st.binary(min_size=1, max_size=64)) + good[position:],
                       "container")
        elif kind == "length":
            size = data.draw(st.integers(0, 10**15))
            fuzz.check(good.replace(good.split(b"\n")[1], str(size).encode(), 1), "container")
        elif kind == "manifest":
            change = data.draw(st.dictionaries(st.sampled_from(
                ["devices", "counts", "schema", "format", "created", "clmodes", "payload_bytes", "x"]),
                json_values, max_size=3))
            fuzz.check(fuzz.wrapped({**fuzz.manifest, **change}, fuzz.payload), "container")
        else:
            start = data.draw(st.integers(0, len(fuzz.payload) - 1))
            noise = data.draw(st.binary(min_size=1, max_size=512))
            payload = fuzz.payload[:start] + noise + fuzz.payload[start + len(noise):]
            fuzz.check(fuzz.wrapped(fuzz.manifest, payload), "container")

    @quick
    @given(st.lists(statements(), min_size=1, max_size=4))
    def payloads(sql):
        try:
            payload = mutated_payload(fuzz.payload, sql)
        except sqlite3.Error:
            reject()
        fuzz.check(fuzz.wrapped(fuzz.manifest, payload), "payload")

    @narrow
    @given(st.one_of(st.sampled_from([b"\n", b"\r\n", b" ", b"\x00", b"\n\n"]), st.binary(min_size=1, max_size=300)))
    def tails(tail):
        """Anything after a signed bundle's last byte (a `\n` once imported)."""
        fuzz.check(fuzz.good + tail, "tail", must_refuse=True)

    @narrow
    @given(st.integers(0, len(fuzz.good) - 1), st.sampled_from(["", "K", "M", " B", "KiB"]))
    def limits(limit, unit):
        """A size limit below the bundle's size, in any spelling."""
        scale = {"": 1, "K": 1024, "M": 1 << 20, " B": 1, "KiB": 1024}[unit]
        os.environ["CLMODES_BUNDLE_MAX_SIZE"] = f"{limit // scale}{unit}"
        try:
            fuzz.check(fuzz.good, "limit", must_refuse=True)
        finally:
            del os.environ["CLMODES_BUNDLE_MAX_SIZE"]

    @narrow
    @given(st.data())
    def pocl_paths(data):
        """A PoCL binary's stored paths with bytes replaced (its layout kept): imported only
        when every path still has the shape PoCL writes."""
        start = data.draw(st.sampled_from([at for at, _ in path_fields(fuzz.pocl)]))
        edits = data.draw(st.lists(st.tuples(st.integers(0, 20), st.sampled_from(PATH_BYTES)), min_size=1, max_size=4))
        binary = bytearray(fuzz.pocl)
        for at, byte in edits:
            binary[min(start + at, len(binary) - 1)] = byte[0]
        fields = path_fields(fuzz.pocl)
        fuzz.check(fuzz.with_binary(bytes(binary)), "pocl path",
                   imported_ok=lambda entries: pocl_paths_ok(entries, fields))

    @narrow
    @given(arg_infos)
    def arg_rows(args):
        """Any JSON as a kernel's argument info: imported only when it is what clmodes writes."""
        try:
            payload = mutated_payload(fuzz.payload, [f"UPDATE kernels SET args = {quoted(json.dumps(args))}"])
        except sqlite3.Error:
            reject()
        fuzz.check(fuzz.wrapped(fuzz.manifest, payload), "argument info", imported_ok=arg_rows_ok)

    containers()
    payloads()
    tails()
    limits()
    pocl_paths()
    arg_rows()


PATH_BYTES = [b".", b"/", b"\x00", b"\x01", b"\\", b"a", b"-", b"_", b"\xff", b"\n", b" ", b"%"]
SHAPE = re.compile(rb"/program\.bc|/twice/[A-Za-z0-9_-]+/[A-Za-z0-9_-][A-Za-z0-9_.-]*")


def path_fields(binary: bytes) -> list[tuple[int, int]]:
    """(offset, length) of each stored path of the fuzz's PoCL binary: a length-prefixed
    `/program.bc` or `/twice/.../twice.so` (found apart from the code under test)."""
    import struct

    return [(m.start(), len(m.group())) for m in re.finditer(rb"/program\.bc|/twice/[0-9a-z-]+/twice\.so", binary)
            if struct.unpack_from("<I", binary, m.start() - 4)[0] == len(m.group())]


def pocl_paths_ok(entries, fields: list[tuple[int, int]]) -> bool:
    """The paths of an imported PoCL binary (edited in place: same offsets) all have
    the shape PoCL writes."""
    for row in entries.binaries:
        if row.binary.startswith(b"poclbin"):
            if not all(SHAPE.fullmatch(row.binary[at:at + length]) for at, length in fields):
                return False
    return True


arg_row = st.one_of(
    st.tuples(st.text(max_size=4), st.sampled_from(["float*", "int", ""]), st.booleans()).map(list),
    st.lists(json_values, max_size=5))
arg_infos = st.one_of(st.lists(arg_row, max_size=3), json_values)


def arg_rows_ok(entries) -> bool:
    for row in entries.kernels:
        args = json.loads(row.args)
        if args is None:
            continue
        if not isinstance(args, list) or not args:
            return False
        for item in args:
            if not (isinstance(item, list) and len(item) in (3, 4) and isinstance(item[0], str)
                    and isinstance(item[1], str) and item[1].strip()
                    and all(type(flag) is bool for flag in item[2:])):
                return False
    return True


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    signal.signal(signal.SIGALRM, _alarm)
    folder = Path(os.environ["CLMODES_FUZZ_DIR"])
    examples = int(os.environ.get("CLMODES_FUZZ_EXAMPLES", "200"))
    fuzz = Fuzz(folder)
    start_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    run(fuzz, examples)
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start_rss) / 1024
    print(json.dumps({"cases": fuzz.cases, "refused": fuzz.refused, "imported": fuzz.imported,
                      "populations": fuzz.populations, "peak_rss_growth_mb": round(growth, 1)}))
