"""Bundle test helpers: recorded devices, a store filled for them, a small bundle, and
the check that a refused bundle left the store as it was."""

import json
from pathlib import Path

import pytest

from clmodes import bundle
from clmodes.bundle import BundleError
from clmodes.device import Device, DeviceDescription
from clmodes.store import Store, StoreEntries

TESTS = Path(__file__).resolve().parents[1]
FIXTURES = TESTS / "fixtures" / "devices"


def fixture_device(name: str, index: int = 0) -> Device:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    fields = {k: v for k, v in data.items() if k in DeviceDescription.__dataclass_fields__}
    return Device(index, None, DeviceDescription(**fields))


def fill(store: Store, device: Device, tunable: str = "op", keys=(1, 2), blob=b"binary") -> None:
    fp = device.fingerprint
    for k in keys:
        store.put_tune_json(fp.model, tunable, json.dumps({"n": k}), "c0", {"winner": f"w{k}"})
    store.put_binary(fp.exact, f"batch-{tunable}", ["u1"], blob + fp.exact.encode(),
                     [(f"kernel-{tunable}", "k", None)])


def snapshot(store: Store) -> StoreEntries:
    return store.entries()


@pytest.fixture(scope="session")
def signing_key(tmp_path_factory) -> Path:
    """A publisher's private key; its public key is the same path + ".pub"."""
    key = tmp_path_factory.mktemp("keys") / "publisher.key"
    bundle.keygen(key)
    return key


def public(key: Path) -> Path:
    return key.with_name(key.name + ".pub")


@pytest.fixture(scope="module")
def small_bundle(tmp_path_factory, signing_key) -> bytes:
    """Two devices' entries, signed by `signing_key`."""
    directory = tmp_path_factory.mktemp("small")
    store = Store(directory / "store")
    fill(store, fixture_device("nvidia-rtx4090-550"))
    fill(store, fixture_device("amd-rx7900xtx-rocm-3602"))
    bundle.export(directory / "b.clmodes", store=store, sign=signing_key)
    return (directory / "b.clmodes").read_bytes()


@pytest.fixture
def target(tmp_path) -> Store:
    """A local store with an entry of its own, which no bad bundle may disturb."""
    store = Store(tmp_path / "target")
    store.put_tune_json("local model", "mine", "k", "c", {"winner": "local"})
    return store


def assert_rejected(data: bytes, tmp_path: Path, target: Store, trusted=(), **options) -> str:
    """The bundle is refused in one line naming its file, the store left as it was;
    returns the line."""
    before = snapshot(target)
    path = tmp_path / "bad.clmodes"
    path.write_bytes(data)
    with pytest.raises(BundleError) as caught:
        bundle.install(path, target, local=[fixture_device("nvidia-rtx4090-550")],
                       trusted_keys=trusted, **options)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
    assert snapshot(target) == before
    return str(caught.value)


def rewrite_manifest(data: bytes, change) -> bytes:
    rest = data[len(bundle.MAGIC):]
    size, _, rest = rest.partition(b"\n")
    manifest = json.loads(rest[: int(size)])
    payload = rest[int(size):]
    change(manifest)
    header = json.dumps(manifest).encode()
    return bundle.MAGIC + f"{len(header)}\n".encode() + header + payload


def tune_only_bundle(path: Path, device: Device | None = None) -> Path:
    """A bundle of tune results only (no binaries), unsigned."""
    store = Store(path.parent / f"{path.stem}-store")
    model = (device or fixture_device("nvidia-rtx4090-550")).fingerprint.model
    store.put_tune_json(model, "op", "k", "c0", {"winner": "w"})
    bundle.export(path, store=store)
    return path


def container(manifest: dict, payload: bytes, key: Path | None = None) -> bytes:
    """A well-formed container around any manifest and payload (checksum recomputed, and
    signed with `key`): what someone who can hand a user a file can make."""
    from clmodes.bundle.container import checksum
    from clmodes.bundle.signing import load_private_key, signature_block

    manifest = {**manifest, "payload_bytes": len(payload)}
    manifest.pop("checksum", None)
    header = json.dumps(manifest, sort_keys=True).encode()
    data = (bundle.MAGIC + f"{len(header)}\n".encode() + header
            + f"{checksum(header, payload)}\n".encode() + payload)
    return data + signature_block(load_private_key(key), data) if key else data


def parts(data: bytes) -> tuple[dict, bytes]:
    """The manifest and payload of a well-formed bundle's bytes."""
    from clmodes.bundle.container import split

    manifest, payload, _ = split(Path("bundle"), data)
    return manifest, payload


def mutated_payload(payload: bytes, statements: list[str]) -> bytes:
    """The payload database after `statements` (SQL an attacker chose) ran on a copy."""
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "p.sqlite3"
        file.write_bytes(payload)
        connection = sqlite3.connect(file, isolation_level=None)
        for sql in statements:
            connection.execute(sql)
        connection.close()
        return file.read_bytes()
