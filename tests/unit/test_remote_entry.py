"""A remote entry's bytes and signature, and the remote's URL: what a hostile or
mistyped value becomes (one line, naming what is wrong), without a server."""

from __future__ import annotations

import sys

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clmodes.remote import layout
from clmodes.remote.config import RemoteError, parse
from clmodes.remote.entry import MAGIC, MalformedEntry, decode, encode
from clmodes.remote.publishing import publishable
from clmodes.store import StoreEntries, TuneRow

KEY = layout.binary_key("exact", "batch")


@pytest.fixture(scope="module")
def private() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def test_an_entry_round_trips_with_its_signer(private):
    data = encode(KEY, {"batch": "b", "n": 1.5}, b"\x00binary\xff", private)
    entry = decode(KEY, data)
    assert entry.content == {"batch": "b", "n": 1.5} and entry.blob == b"\x00binary\xff"
    assert entry.signer.raw == private.public_key().public_bytes_raw()


def test_an_entry_under_another_key_is_a_bad_signature(private):
    data = encode(KEY, {"batch": "b"}, b"bin", private)
    with pytest.raises(MalformedEntry, match="bad signature"):
        decode(layout.binary_key("exact", "other"), data)


@pytest.mark.parametrize("where", [len(MAGIC) + 10, -70, -1])  # header, blob, signature
def test_a_flipped_byte_anywhere_is_refused(private, where):
    data = bytearray(encode(KEY, {"batch": "b"}, b"some binary bytes", private))
    data[where] ^= 0x01
    with pytest.raises(MalformedEntry):
        decode(KEY, bytes(data))


@pytest.mark.parametrize("data, why", [
    (b"", "not a clmodes remote entry"),
    (b"pickle\x80\x04", "not a clmodes remote entry"),
    (MAGIC + b"\x00\x00", "truncated"),
    (MAGIC + (1 << 30).to_bytes(4, "big") + b"{}" + b"\0" * 64, "does not fit"),
    (MAGIC + (8).to_bytes(4, "big") + b"not json" + b"\0" * 64, "does not parse"),
    (MAGIC + (2).to_bytes(4, "big") + b"[]" + b"\0" * 64, "not {signer, content}"),
])
def test_malformed_entries_are_refused_naming_why(data, why):
    with pytest.raises(MalformedEntry, match=why):
        decode(KEY, data)


def test_non_finite_numbers_are_refused(private):
    header = b'{"content":{"x":NaN},"signer":"AAAA"}'
    data = MAGIC + len(header).to_bytes(4, "big") + header + b"\0" * 64
    with pytest.raises(MalformedEntry, match="not a number|not finite"):
        decode(KEY, data)


@pytest.mark.parametrize("url", ["http://h:1/0", "redis://:6379/0", "redis://h:99999/0",
                                 "redis://h:1/x", "h:6379"])
def test_a_url_that_is_not_a_remote_is_one_line(url):
    with pytest.raises(RemoteError, match="not a remote URL") as caught:
        parse(url)
    assert "\n" not in str(caught.value)


def test_urls_parse_and_credentials_are_never_shown():
    parsed = parse("rediss://user:secret@cache.example:6380/2")
    assert (parsed.host, parsed.port, parsed.db, parsed.tls) == ("cache.example", 6380, 2, True)
    assert "secret" not in parsed.shown and parsed.shown == "rediss://cache.example:6380/2"
    assert parse("redis://localhost").port == 6379


def test_graded_answers_and_remote_entries_are_not_republished():
    def row(model: str, value: str) -> TuneRow:
        return TuneRow(1, model, "t", "{}", "c", value)

    entries = StoreEntries([row("measured", '{"winner": "a"}'),
                            row("graded", '{"winner": "a", "grade": "family"}'),
                            row("read", '{"winner": "a"}')], [], [])
    kept = publishable(entries, {("read", "t", "{}", "c")}, set())
    assert [r.model for r in kept.tune] == ["measured"]


def test_a_remote_without_redis_py_is_one_line_naming_the_extra(monkeypatch, capsys):
    from clmodes.cli import main

    monkeypatch.setenv("CLMODES_REMOTE", "redis://127.0.0.1:1/0")
    monkeypatch.setitem(sys.modules, "redis", None)  # `import redis` raises ImportError
    assert main(["cache", "info"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip install 'clmodes[remote]'" in err


def test_the_library_warns_once_and_runs_local_without_redis_py(monkeypatch, caplog):
    from clmodes.remote import from_environment

    monkeypatch.setenv("CLMODES_REMOTE", "redis://127.0.0.1:1/0")
    monkeypatch.setitem(sys.modules, "redis", None)
    assert from_environment() is None
    assert "clmodes[remote]" in caplog.text and "local store only" in caplog.text
