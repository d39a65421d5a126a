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

        self.folder, self.cases, self.refused, self.imported = folder, 0, 0, 0
        self.key = folder / "fuzz.key"
        bundle.keygen(self.key)
        store = Store(folder / "source")
        fill(store, fixture_device("nvidia-rtx4090-550"))
        fill(store, fixture_device("amd-rx7900xtx-rocm-3602"))
        bundle.export(folder / "good.clmodes", store=store, sign=self.key)
        self.good = (folder / "good.clmodes").read_bytes()
        self.manifest, self.payload = parts(self.good)
        self.local = [fixture_device("nvidia-rtx4090-550")]

    def check(self, data: bytes) -> None:
        """One case, bounded: refused in one line with the store as it was, or imported."""
        from clmodes import bundle
        from clmodes.bundle import BundleError
        from clmodes.store import Store

        from support.bundles import public

        self.cases += 1
        path = self.folder / "case.clmodes"
        path.write_bytes(data)
        target = Store(self.folder / f"target-{self.cases}")
        target.put_tune("local model", "mine", "k", "c", {"winner": "local"})
        before = target.entries()
        signal.alarm(CASE_SECONDS)
        try:
            bundle.install(path, target, local=self.local, trusted_keys=[public(self.key)])
            bundle.inspect(path, local=self.local)
            self.imported += 1
        except BundleError as error:
            message = str(error)
            assert "\n" not in message and str(path) in message, message
            assert target.entries() == before, message
            self.refused += 1
        finally:
            signal.alarm(0)
            target.close()

    def wrapped(self, manifest: dict, payload: bytes) -> bytes:
        from support.bundles import container

        return container(manifest, payload, self.key)


def run(fuzz: Fuzz, examples: int) -> None:
    from support.bundles import mutated_payload

    quick = settings(max_examples=examples, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))

    @quick
    @given(st.data())
    def containers(data):
        good = fuzz.good
        kind = data.draw(st.sampled_from(["flip", "cut", "insert", "length", "manifest", "garbage"]))
        if kind == "flip":
            position = data.draw(st.integers(0, len(good) - 1))
            case = bytearray(good)
            case[position] ^= data.draw(st.integers(1, 255))
            fuzz.check(bytes(case))
        elif kind == "cut":
            fuzz.check(good[:data.draw(st.integers(0, len(good) - 1))])
        elif kind == "insert":
            position = data.draw(st.integers(0, len(good)))
            fuzz.check(good[:position] + data.draw(st.binary(min_size=1, max_size=64)) + good[position:])
        elif kind == "length":
            size = data.draw(st.integers(0, 10**15))
            fuzz.check(good.replace(good.split(b"\n")[1], str(size).encode(), 1))
        elif kind == "manifest":
            change = data.draw(st.dictionaries(st.sampled_from(
                ["devices", "counts", "schema", "format", "created", "clmodes", "payload_bytes", "x"]),
                json_values, max_size=3))
            fuzz.check(fuzz.wrapped({**fuzz.manifest, **change}, fuzz.payload))
        else:
            start = data.draw(st.integers(0, len(fuzz.payload) - 1))
            noise = data.draw(st.binary(min_size=1, max_size=512))
            payload = fuzz.payload[:start] + noise + fuzz.payload[start + len(noise):]
            fuzz.check(fuzz.wrapped(fuzz.manifest, payload))

    @quick
    @given(st.lists(statements(), min_size=1, max_size=4))
    def payloads(sql):
        try:
            payload = mutated_payload(fuzz.payload, sql)
        except sqlite3.Error:
            reject()
        fuzz.check(fuzz.wrapped(fuzz.manifest, payload))

    containers()
    payloads()


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
                      "peak_rss_growth_mb": round(growth, 1)}))
