"""Cache bundles: export, import, inspect, merge; bad bundles leave the store untouched."""

import base64
import json

from clmodes.store import Store
from support.subprocesses import last_json, run_cli, run_python

from support.bundles import fill, fixture_device


def test_exported_bundle_makes_a_fresh_process_warm(tmp_path):
    from support.subprocesses import RUN_WORKLOAD

    maker, user = tmp_path / "maker", tmp_path / "user"
    key = tmp_path / "publisher.key"
    assert run_cli(maker, "bundle", "keygen", str(key)).returncode == 0
    assert run_cli(maker, "warm", "support.tunables:workload").returncode == 0
    exported = run_cli(maker, "bundle", "export", str(tmp_path / "ship.clmodes"), "--json",
                       "--sign", str(key))
    assert exported.returncode == 0, exported.stderr
    inspected = json.loads(run_cli(user, "bundle", "inspect", str(tmp_path / "ship.clmodes"), "--json").stdout)
    assert [m["match"] for m in inspected["matches"]] == ["exact"]
    assert inspected["trust"]["signed"] and not inspected["trust"]["trusted"]
    imported = run_cli(user, "bundle", "import", str(tmp_path / "ship.clmodes"),
                       "--trust", f"{key}.pub")
    assert imported.returncode == 0 and "exact match" in imported.stdout, imported.stderr
    assert "signature: valid" in imported.stdout and "trusted" in imported.stdout
    run = last_json(run_python(RUN_WORKLOAD, user))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["compiled"] == 0 and run["compilation"]["builds"] == 0
    assert run["compilation"]["loaded"] == 13 and run["autotune"]["keys"] == 0


def test_cli_rejects_bad_bundle_in_one_line(tmp_path, small_bundle):
    path = tmp_path / "cut.clmodes"
    path.write_bytes(small_bundle[: len(small_bundle) // 2])
    out = run_cli(tmp_path, "bundle", "import", str(path))
    assert out.returncode == 2 and "truncated bundle" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    merged = run_cli(tmp_path, "bundle", "merge", "-o", str(tmp_path / "m.clmodes"), str(path))
    assert merged.returncode == 2 and not (tmp_path / "m.clmodes").exists()




def test_signing_and_trust_from_the_command_line(tmp_path):
    fill(Store(tmp_path), fixture_device("nvidia-rtx4090-550"))
    key, other = tmp_path / "k", tmp_path / "other"
    made = run_cli(tmp_path, "bundle", "keygen", str(key), "--json")
    assert made.returncode == 0, made.stderr
    fingerprint = json.loads(made.stdout)["fingerprint"]
    again = run_cli(tmp_path, "bundle", "keygen", str(key))
    assert again.returncode == 2 and "never overwrites" in again.stderr
    assert run_cli(tmp_path, "bundle", "keygen", str(other)).returncode == 0
    unsigned, signed = tmp_path / "u.clmodes", tmp_path / "s.clmodes"
    assert run_cli(tmp_path, "bundle", "export", str(unsigned)).returncode == 0
    assert run_cli(tmp_path, "bundle", "merge", "-o", str(signed), str(unsigned), "--sign", str(key)).returncode == 0
    user = tmp_path / "user"
    refused = run_cli(user, "bundle", "import", str(unsigned))
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "unsigned" in refused.stderr and "--allow-unsigned" in refused.stderr
    untrusted = run_cli(user, "bundle", "import", str(signed), "--trust", f"{other}.pub")
    assert untrusted.returncode == 2 and f"signed by {fingerprint[:16]}" in untrusted.stderr
    inspected = run_cli(user, "bundle", "inspect", str(signed), "--trust", f"{key}.pub")
    assert f"signature: valid, by key {fingerprint[:16]}, trusted" in inspected.stdout
    allowed = run_cli(user, "bundle", "import", str(unsigned), "--allow-unsigned")
    assert allowed.returncode == 0 and "--allow-unsigned" in allowed.stderr
    assert run_cli(user, "bundle", "sign", str(unsigned), "--key", str(other)).returncode == 0
    resigned = json.loads(run_cli(user, "bundle", "inspect", str(unsigned), "--json").stdout)
    assert resigned["trust"]["signed"] and resigned["trust"]["signer"] != fingerprint
    original = signed.read_bytes()
    signed.write_bytes(_with_one_signature_bit_flipped(original))
    bad = run_cli(user, "bundle", "import", str(signed), "--trust", f"{key}.pub", "--allow-unsigned")
    assert bad.returncode == 2 and "bad signature" in bad.stderr and "Traceback" not in bad.stderr
    # A flipped bit in the base64 text itself may make it not base64 at all: refused too,
    # as a damaged block, never a traceback (which one depends on the random signature).
    text = bytearray(original)
    text[-20] ^= 1
    signed.write_bytes(bytes(text))
    damaged = run_cli(user, "bundle", "import", str(signed), "--trust", f"{key}.pub", "--allow-unsigned")
    assert damaged.returncode == 2 and len(damaged.stderr.strip().splitlines()) == 1
    assert ("bad signature" in damaged.stderr or "damaged signature block" in damaged.stderr)


def _with_one_signature_bit_flipped(data: bytes) -> bytes:
    """The bundle with one bit of its decoded signature flipped, re-spelt as signing
    writes a block: a block of the right shape whose signature does not verify."""
    payload, block = data.split(b"CLMODES-SIGNATURE\n", 1)
    fields = json.loads(block)
    raw = bytearray(base64.b64decode(fields["signature"]))
    raw[10] ^= 1
    fields["signature"] = base64.b64encode(bytes(raw)).decode()
    return payload + b"CLMODES-SIGNATURE\n" + json.dumps(fields, sort_keys=True).encode() + b"\n"


def _folder_listing(folder):
    """What a user keeps there (the store's own files come and go with its journal)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("store.sqlite3"))


def test_merge_never_overwrites_an_input_or_an_existing_file(tmp_path):
    fill(Store(tmp_path), fixture_device("nvidia-rtx4090-550"))
    path = tmp_path / "a.clmodes"
    exported = run_cli(tmp_path, "bundle", "export", str(path))
    assert exported.returncode == 0, exported.stderr
    original = path.read_bytes()
    onto_input = run_cli(tmp_path, "bundle", "merge", "-o", str(path), str(path))
    assert onto_input.returncode == 2 and "is also an input" in onto_input.stderr
    other = tmp_path / "b.clmodes"
    other.write_bytes(b"not mine to lose")
    existing = run_cli(tmp_path, "bundle", "merge", "-o", str(other), str(path))
    assert existing.returncode == 2 and "--force" in existing.stderr
    assert other.read_bytes() == b"not mine to lose" and path.read_bytes() == original
    forced = run_cli(tmp_path, "bundle", "merge", "-o", str(other), str(path), "--force")
    assert forced.returncode == 0, forced.stderr
    assert other.read_bytes() != b"not mine to lose"


def test_export_to_a_bad_path_is_one_line_and_leaves_no_temporary_file(tmp_path):
    fill(Store(tmp_path), fixture_device("nvidia-rtx4090-550"))
    folder = tmp_path / "target"
    folder.mkdir()
    before = _folder_listing(tmp_path)
    for target, message in ((folder, "is a directory"),
                            (tmp_path / "missing" / "x.clmodes", "does not exist"),
                            ("/proc/clmodes.clmodes", "cannot write")):
        out = run_cli(tmp_path, "bundle", "export", str(target))
        assert out.returncode == 2, out.stderr
        errors = [line for line in out.stderr.splitlines() if line.startswith("clmodes:")]
        assert len(errors) == 1 and message in errors[0] and str(target) in errors[0]
        assert "Traceback" not in out.stderr
    assert _folder_listing(tmp_path) == before and _folder_listing(folder) == []


def test_import_into_a_store_that_cannot_keep_it_is_refused(tmp_path, small_bundle):
    bundle = tmp_path / "ship.clmodes"
    bundle.write_bytes(small_bundle)
    not_a_folder = tmp_path / "cache-is-a-file"
    not_a_folder.write_text("not a directory\n")
    refused = run_cli(not_a_folder, "bundle", "import", str(bundle), "--allow-unsigned")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    (line,) = [x for x in refused.stderr.splitlines() if x.startswith("clmodes: ")]
    assert "in memory: nothing imported" in line and "--allow-memory" in line
    assert "Traceback" not in refused.stderr and "imported" not in refused.stdout
    allowed = run_cli(not_a_folder, "bundle", "import", str(bundle), "--allow-unsigned",
                      "--allow-memory", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert "nothing will be kept" in allowed.stderr
    assert not_a_folder.read_text() == "not a directory\n"
