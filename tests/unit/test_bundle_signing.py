"""Signed bundles and the trust policy: who may hand this machine program binaries."""

import base64
import json
import os
import stat

import pytest

from clmodes import bundle
from clmodes.bundle import BundleError
from clmodes.bundle.signing import SIGNATURE_MAGIC
from clmodes.store import Store

from support.bundles import assert_rejected, fill, fixture_device, public, tune_only_bundle

NVIDIA = "nvidia-rtx4090-550"


def install(path, store, **options):
    return bundle.install(path, store, local=[fixture_device(NVIDIA)], **options)


def test_keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites(tmp_path):
    key = tmp_path / "k"
    made = bundle.keygen(key)
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    line = public(key).read_text()
    assert line.startswith("ssh-ed25519 ") and len(line.splitlines()) == 1
    assert bundle.load_public_key(public(key)).fingerprint == made.fingerprint
    before = key.read_bytes(), public(key).read_bytes()
    with pytest.raises(BundleError, match="exists; keygen never overwrites"):
        bundle.keygen(key)
    public(key).unlink()  # even a lone private key is kept
    with pytest.raises(BundleError, match="exists"):
        bundle.keygen(key)
    assert key.read_bytes() == before[0] and not public(key).exists()


def test_signed_bundle_from_a_trusted_key_imports_and_inspect_names_its_signer(
        small_bundle, tmp_path, target, signing_key):
    path = tmp_path / "b.clmodes"
    path.write_bytes(small_bundle)
    signer = bundle.load_public_key(public(signing_key)).fingerprint
    untrusted = bundle.inspect(path, local=[])["trust"]
    assert untrusted == {"signed": True, "signer": signer, "signer_short": signer[:16],
                         "trusted": False, "trusted_by": None,
                         "import": "refused unless --allow-unsigned (it carries program binaries)"}
    trusted = bundle.inspect(path, local=[], trusted_keys=[public(signing_key)])["trust"]
    assert trusted["trusted"] and trusted["trusted_by"] == str(public(signing_key))
    assert trusted["import"] == "imports"
    report = install(path, target, trusted_keys=[public(signing_key)])
    assert report["added"] == {"tune": 2, "binaries": 1, "kernels": 1} and not report["warnings"]


def test_unsigned_bundle_with_binaries_is_refused_unless_allowed(tmp_path, target, caplog):
    source = Store(tmp_path / "source")
    fill(source, fixture_device(NVIDIA))
    path = tmp_path / "unsigned.clmodes"
    bundle.export(path, store=source)
    line = assert_rejected(path.read_bytes(), tmp_path, target)
    assert "unsigned" in line and "--trust KEY.pub" in line and "--allow-unsigned" in line
    with caplog.at_level("WARNING", logger="clmodes"):
        report = install(path, target, allow_unsigned=True)
    assert report["added"]["binaries"] == 1 and not report["trust"]["signed"]
    assert "--allow-unsigned" in caplog.text and "program binaries" in caplog.text


def test_an_untrusted_signer_is_refused_and_named(small_bundle, tmp_path, target, signing_key):
    other = tmp_path / "other.key"
    bundle.keygen(other)
    line = assert_rejected(small_bundle, tmp_path, target, trusted=[public(other)])
    short = bundle.load_public_key(public(signing_key)).short
    assert f"signed by {short}, a key this machine does not trust" in line


def test_tune_results_only_import_unsigned_with_a_warning(tmp_path, target, caplog):
    path = tune_only_bundle(tmp_path / "tunes.clmodes")
    with caplog.at_level("WARNING", logger="clmodes"):
        report = install(path, target)
    assert report["added"]["tune"] == 1 and "tune results only" in report["warnings"][0]
    assert "tune results only" in caplog.text


def test_trusted_keys_come_from_the_environment_and_the_config_dir(
        small_bundle, tmp_path, target, signing_key, monkeypatch):
    path = tmp_path / "b.clmodes"
    path.write_bytes(small_bundle)
    other = tmp_path / "other.key"
    bundle.keygen(other)
    monkeypatch.setenv("CLMODES_TRUSTED_KEYS", os.pathsep.join([str(public(other)), str(public(signing_key))]))
    assert install(path, Store(tmp_path / "a"))["trust"]["trusted_by"] == str(public(signing_key))
    monkeypatch.delenv("CLMODES_TRUSTED_KEYS")
    config = tmp_path / "config"
    monkeypatch.setenv("CLMODES_CONFIG_DIR", str(config))
    assert bundle.trusted_keys_dir() == config / "trusted-keys"
    with pytest.raises(BundleError, match="does not trust"):
        install(path, Store(tmp_path / "b"))
    (config / "trusted-keys").mkdir(parents=True)
    (config / "trusted-keys" / "publisher.pub").write_bytes(public(signing_key).read_bytes())
    assert install(path, Store(tmp_path / "c"))["trust"]["trusted"]
    (config / "trusted-keys" / "typo.pub").write_text("ssh-ed25519 not-base64")
    with pytest.raises(BundleError, match="typo.pub: not an ed25519 public key"):
        install(path, Store(tmp_path / "d"))


def test_a_bad_signature_is_refused_even_when_unsigned_is_allowed(small_bundle, tmp_path, target):
    block = small_bundle.index(SIGNATURE_MAGIC)
    fields = json.loads(small_bundle[block + len(SIGNATURE_MAGIC):])
    signature = bytearray(base64.b64decode(fields["signature"]))
    signature[5] ^= 1
    other = tmp_path / "other.key"
    made = bundle.keygen(other)
    for forged in (dict(fields, signature=base64.b64encode(bytes(signature)).decode()),
                   # someone else's key claimed for the original signature
                   dict(fields, public_key=base64.b64encode(made.raw).decode(),
                        fingerprint=made.fingerprint)):
        data = small_bundle[:block] + SIGNATURE_MAGIC + json.dumps(forged).encode() + b"\n"
        line = assert_rejected(data, tmp_path, target, trusted=[public(other)], allow_unsigned=True)
        assert "bad signature" in line
        (tmp_path / "forged.clmodes").write_bytes(data)
        with pytest.raises(BundleError, match="bad signature"):
            bundle.inspect(tmp_path / "forged.clmodes", local=[])


def test_sign_replaces_a_signature_and_verifies_first(small_bundle, tmp_path, signing_key):
    path = tmp_path / "b.clmodes"
    path.write_bytes(small_bundle)
    other = tmp_path / "other.key"
    made = bundle.keygen(other)
    assert bundle.sign(path, other).key.fingerprint == made.fingerprint
    assert bundle.inspect(path, local=[])["trust"]["signer"] == made.fingerprint
    assert path.read_bytes().count(SIGNATURE_MAGIC) == 1
    cut = tmp_path / "cut.clmodes"
    cut.write_bytes(small_bundle[:100])
    with pytest.raises(BundleError, match="truncated"):
        bundle.sign(cut, signing_key)
    assert cut.read_bytes() == small_bundle[:100]
    with pytest.raises(BundleError, match="that is the public key"):
        bundle.sign(path, public(other))


def test_removing_the_signature_leaves_an_unsigned_bundle(small_bundle, tmp_path, target, signing_key):
    unsigned = small_bundle[:small_bundle.index(SIGNATURE_MAGIC)]
    line = assert_rejected(unsigned, tmp_path, target, trusted=[public(signing_key)])
    assert "unsigned" in line


def respaced(data: bytes) -> bytes:
    """The same signature block, its JSON written with other whitespace."""
    block = data.index(SIGNATURE_MAGIC) + len(SIGNATURE_MAGIC)
    fields = json.loads(data[block:])
    return data[:block] + json.dumps(fields, indent=1).replace("\n", " ").encode() + b"\n"


def unused_bits(data: bytes) -> bytes:
    """The same signature with the unused bits of its last base64 digit set: it decodes
    to the same bytes."""
    block = data.index(SIGNATURE_MAGIC) + len(SIGNATURE_MAGIC)
    fields = json.loads(data[block:])
    text = fields["signature"]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = text.rstrip("=")[-1]
    fields["signature"] = text.replace(last + "==", alphabet[alphabet.index(last) | 1] + "==")
    assert base64.b64decode(fields["signature"]) == base64.b64decode(text)
    return data[:block] + json.dumps(fields, sort_keys=True).encode() + b"\n"


@pytest.mark.parametrize("change", [
    lambda d: d + b"\n", lambda d: d + b"\r\n", lambda d: d + b" ", lambda d: d + b"\x00",
    lambda d: d[:-1] + b"\r\n", respaced, unused_bits,
], ids=["newline", "crlf", "space", "nul", "cr-before-newline", "respaced", "base64-bits"])
def test_a_signed_bundle_with_any_byte_changed_or_added_is_refused(
        small_bundle, tmp_path, target, signing_key, change):
    """The signature's verdict holds for the exact file: a `\\n` appended once imported."""
    data = change(small_bundle)
    assert data != small_bundle
    line = assert_rejected(data, tmp_path, target, trusted=[public(signing_key)], allow_unsigned=True)
    assert "signature block" in line
