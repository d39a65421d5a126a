"""A team's shared cache on a real Redis: two stores play two machines, the remote is
tampered with, killed, stopped, full, written by two publishers at once.

Every clmodes process runs inside one private network and PID namespace with its
`redis-server` (`support.remote_namespace`), which ends with the test. Skipped, with
the reason, without redis-server, redis-py or unshare.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clmodes.bundle import keygen
from clmodes.remote import entry as remote_entry
from support.remote_fixtures import key, namespace  # noqa: F401 - fixtures
from support.remote_namespace import URL, RemoteNamespace
from support.subprocesses import RUN_WORKLOAD, environment, require_runtime

POCL = "Portable Computing Language"
WARM = ("import json, logging, clmodes; from support import tunables; "
        "logging.basicConfig(level=logging.INFO); "  # its publishing line is INFO
        "print(json.dumps(clmodes.warm(tunables.workload).as_dict()))")
# A read through the remote first (it answers), then the server is stopped or killed by
# the pid the controller gave, then the workload runs: its misses meet a dead remote.
MID_RUN = """
import os, signal, clmodes
clmodes.default_store().get_tune_json("m", "t", "k", "c")
os.kill(int(os.environ["REDIS_PID"]), getattr(signal, os.environ["REDIS_SIGNAL"]))
""" + RUN_WORKLOAD




def _env(tmp_path: Path, store: str, device: str, *, trust: Path | None = None,
         sign: Path | None = None, remote: bool = True, **extra: str) -> dict[str, str]:
    (tmp_path / "config").mkdir(exist_ok=True)  # no trusted-keys/ but the test's
    env = {"CLMODES_CACHE_DIR": str(tmp_path / store), "CLMODES_DEVICE": device,
           "CLMODES_CONFIG_DIR": str(tmp_path / "config"),
           "CLMODES_TRUSTED_KEYS": str(trust.with_name(trust.name + ".pub")) if trust else "",
           "CLMODES_SIGNING_KEY": str(sign) if sign else "",
           "CLMODES_REMOTE": URL if remote else "", **extra}
    return env


def _python(ns: RemoteNamespace, code: str, env: dict[str, str]) -> dict:
    out = ns.run([sys.executable, "-c", code], env)
    assert out["returncode"] == 0, out["stderr"]
    assert "Traceback" not in out["stderr"], out["stderr"]
    return {**json.loads(out["stdout"].strip().splitlines()[-1]), "stderr": out["stderr"]}


def _cli(ns: RemoteNamespace, env: dict[str, str], *args: str) -> dict:
    out = ns.run([sys.executable, "-m", "clmodes", *args], env)
    assert "Traceback" not in out["stderr"], out["stderr"]
    return out


def _warm(ns: RemoteNamespace, tmp_path: Path, store: str, device: str, sign: Path) -> dict:
    return _python(ns, WARM, _env(tmp_path, store, device, sign=sign))


def _cold_ok(run: dict) -> None:
    """A run that took nothing from the remote and still ran correctly."""
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["loaded"] == 0 and run["compilation"]["compiled"] >= 13


def _keys(ns: RemoteNamespace, kind: str) -> list[bytes]:
    return sorted(ns.redis("KEYS", f"clmodes:1:{kind}:*"))


def test_a_second_machine_trusting_the_key_compiles_and_tunes_nothing(
        namespace: RemoteNamespace, tmp_path: Path, key: Path, runtime: str):
    warmed = _warm(namespace, tmp_path, "a", runtime, key)
    assert warmed["compilation"]["compiled"] >= 15 and warmed["autotune"]["keys"] == 1
    assert "published" in warmed["stderr"]

    run = _python(namespace, RUN_WORKLOAD, _env(tmp_path, "b", runtime, trust=key))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["compiled"] == 0 and run["compilation"]["builds"] == 0
    assert run["compilation"]["loaded"] == 13 and run["autotune"]["keys"] == 0
    assert run["source_builds"] == 0

    # Kept locally, with its origin: the next process needs no remote at all.
    listed = json.loads(_cli(namespace, _env(tmp_path, "b", runtime, remote=False),
                             "tune", "list", "--json")["stdout"])
    assert [e["origin"] for e in listed["entries"]] == ["remote"]
    info = json.loads(_cli(namespace, _env(tmp_path, "b", runtime, trust=key),
                           "cache", "info", "--json")["stdout"])
    assert info["remote"]["reachable"] and info["remote"]["url"] == URL
    assert info["remote"]["from_remote"]["tune_results"] == 1
    assert info["remote"]["from_remote"]["binaries"] >= 1
    checked = _cli(namespace, _env(tmp_path, "b", runtime, remote=False), "check",
                   "support.tunables:workload")
    assert checked["returncode"] == 0, checked["stdout"] + checked["stderr"]


def test_a_machine_not_trusting_the_key_takes_no_binary_and_runs_correctly(
        namespace: RemoteNamespace, tmp_path: Path, key: Path):
    device = require_runtime(POCL)
    _warm(namespace, tmp_path, "a", device, key)
    run = _python(namespace, RUN_WORKLOAD, _env(tmp_path, "c", device))
    _cold_ok(run)
    assert run["autotune"]["keys"] == 1  # its tune result is refused too
    assert run["stderr"].count("refusing entries signed by") == 2  # binaries, tune results
    # With --allow-unsigned the tune result is used (a warning); binaries never.
    allowed = _cli(namespace, _env(tmp_path, "d", device), "check", "support.tunables:workload",
                   "--allow-unsigned", "--json")
    report = json.loads(allowed["stdout"])
    assert report["autotune"]["keys"] == 0 and report["compilation"]["loaded"] == 0
    assert "using tune results signed by" in allowed["stderr"]


def test_tampered_entries_are_refused_one_line_each(namespace: RemoteNamespace,
                                                    tmp_path: Path, key: Path):
    device = require_runtime(POCL)
    _warm(namespace, tmp_path, "a", device, key)
    [binary] = _keys(namespace, "binary")
    kernels = _keys(namespace, "kernel")
    [tune] = _keys(namespace, "tune")
    value = bytearray(namespace.redis("GET", binary))
    value[len(value) // 2] ^= 0x01  # a flipped byte inside the program binary
    namespace.redis("SET", binary, bytes(value))
    first, second = (namespace.redis("GET", k) for k in kernels[:2])
    namespace.redis("SET", kernels[0], second)  # swapped: each signed for the other's key
    namespace.redis("SET", kernels[1], first)
    [model] = namespace.redis("HKEYS", tune)
    namespace.redis("HSET", tune, model, b"x" * (2 << 20))  # over the 1 MiB limit
    header = b"not json"
    junk = remote_entry.MAGIC + len(header).to_bytes(4, "big") + header + b"\0" * 64
    namespace.redis("HSET", tune, model.replace(b"2CU", b"3CU"), junk)

    run = _python(namespace, RUN_WORKLOAD, _env(tmp_path, "b", device, trust=key))
    _cold_ok(run)
    assert run["autotune"]["keys"] == 1
    refused = [line for line in run["stderr"].splitlines() if " refused: " in line]
    assert any(kernels[0].decode() in line and "bad signature" in line for line in refused)
    assert any(kernels[1].decode() in line and "bad signature" in line for line in refused)
    assert any(tune.decode() in line and "limit" in line for line in refused)
    assert any(tune.decode() in line and "does not parse" in line for line in refused)
    # The binary is named only if an index entry still led to it (both were swapped);
    # read directly under its own key, the flipped byte is a bad signature.
    with pytest.raises(remote_entry.MalformedEntry, match="bad signature"):
        remote_entry.decode(binary.decode(), bytes(value))


@pytest.mark.parametrize("how", ["SIGKILL", "SIGSTOP"])
def test_the_server_lost_mid_run_costs_one_warning_and_the_run_finishes(
        namespace: RemoteNamespace, tmp_path: Path, how: str):
    device = require_runtime(POCL)
    pid = namespace.ask("server", action="resume")["pid"]
    run = _python(namespace, MID_RUN, _env(tmp_path, "b", device, REDIS_PID=str(pid),
                                           REDIS_SIGNAL=how))
    _cold_ok(run)
    assert run["stderr"].count("using the local store only") == 1, run["stderr"]
    if how == "SIGSTOP":
        assert "imeout" in run["stderr"]  # the socket timeout, once
        namespace.ask("server", action="resume")


def test_a_remote_down_from_the_start_costs_one_warning(namespace: RemoteNamespace,
                                                        tmp_path: Path, key: Path):
    device = require_runtime(POCL)
    namespace.ask("server", action="kill")
    run = _python(namespace, RUN_WORKLOAD, _env(tmp_path, "b", device, trust=key))
    _cold_ok(run)
    assert run["stderr"].count("using the local store only") == 1, run["stderr"]
    warmed = _warm(namespace, tmp_path, "c", device, key)  # publishing to it: one warning
    assert warmed["compilation"]["compiled"] >= 15
    assert warmed["stderr"].count("using the local store only") == 1


def test_a_full_remote_fails_no_warm(tmp_path: Path, key: Path):
    device = require_runtime(POCL)
    why = RemoteNamespace.unusable()
    if why:
        pytest.skip(why)
    full = RemoteNamespace(tmp_path)
    full.start(environment(), maxmemory="1mb")
    try:
        warmed = _warm(full, tmp_path, "a", device, key)
        assert warmed["compilation"]["compiled"] >= 15
        assert warmed["stderr"].count("using the local store only") == 1
        assert "maxmemory" in warmed["stderr"], warmed["stderr"][-3000:]  # out of memory
    finally:
        full.close()


def test_concurrent_publishers_agree(namespace: RemoteNamespace, tmp_path: Path):
    device = require_runtime(POCL)
    keys = []
    for name in ("one", "two"):
        keygen(tmp_path / name)
        keys.append(tmp_path / name)
    pids = [namespace.ask("spawn", argv=[sys.executable, "-c", WARM],
                          env=_env(tmp_path, f"a-{k.name}", device, sign=k))["pid"]
            for k in keys]
    for pid in pids:
        done = namespace.ask("wait", pid=pid)
        assert done["returncode"] == 0, done["stderr"]
    signers = set()
    binaries = {name.decode() for name in _keys(namespace, "binary")}
    for name in binaries:
        signers.add(remote_entry.decode(name, namespace.redis("GET", name)).signer.short)
    for name in _keys(namespace, "kernel"):
        indexed = remote_entry.decode(name.decode(), namespace.redis("GET", name))
        signers.add(indexed.signer.short)
        # Each kernel key has one entry (the first written), and it names a binary that
        # is there: the two warms may have chosen other winners, so other batches.
        assert name.decode().replace(":kernel:", ":binary:").rsplit(":", 1)[0] + ":" + \
            indexed.content["batch"] in binaries
    [tune] = _keys(namespace, "tune")
    assert len(namespace.redis("HKEYS", tune)) == 1  # one decision per model: the first
    # Whoever wrote each entry first, a reader trusting both gets one consistent set.
    both = f"{keys[0]}.pub:{keys[1]}.pub"
    run = _python(namespace, RUN_WORKLOAD,
                  _env(tmp_path, "reader", device, CLMODES_TRUSTED_KEYS=both))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["compiled"] == 0 and run["autotune"]["keys"] == 0
    assert signers <= {k.short for k in map(_public, keys)}
    again = _warm(namespace, tmp_path, f"a-{keys[0].name}", device, keys[0])
    assert "published 0 entries" in again["stderr"]  # idempotent: nothing sent twice


def _public(private: Path):
    from clmodes.bundle import load_public_key

    return load_public_key(private.with_name(private.name + ".pub"))


def test_a_bundle_published_as_fleet_warm_publishes_it_is_read_through(
        namespace: RemoteNamespace, tmp_path: Path, key: Path):
    """`fleet warm --sign` publishes its merged bundle from the driver with
    `clmodes.remote.publish_entries`: here on a bundle made by one warm, without Ray."""
    device = require_runtime(POCL)
    maker = _env(tmp_path, "maker", device, remote=False)
    _python(namespace, WARM, maker)
    bundle = tmp_path / "merged.clmodes"
    exported = _cli(namespace, maker, "bundle", "export", str(bundle), "--sign", str(key))
    assert exported["returncode"] == 0, exported["stderr"]
    code = ("import json, clmodes.remote as r; from clmodes import bundle; "
            f"r.configure({URL!r}); "
            f"print(json.dumps(r.publish_entries(bundle.read({str(bundle)!r}).entries, "
            f"{str(key)!r}).as_dict()))")
    published = _python(namespace, code, _env(tmp_path, "driver", device))
    assert published["written"] >= 3 and published["available"]
    run = _python(namespace, RUN_WORKLOAD, _env(tmp_path, "user", device, trust=key))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["compiled"] == 0 and run["autotune"]["keys"] == 0


THREADS = """
import logging, os, signal, threading, clmodes
logging.basicConfig(level=logging.WARNING)
os.kill(int(os.environ["REDIS_PID"]), signal.SIGSTOP)
store, found = clmodes.Store(None), []
def miss(n):
    found.append(store.get_tune_json("m", "t", f"k{n}", "c"))
    found.append(store.kernel_batches("e", [f"kernel{n}"]))
threads = [threading.Thread(target=miss, args=(n,)) for n in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print('{"misses": %d, "hits": %d}' % (len(found), sum(1 for f in found if f)))
"""


def test_threads_missing_at_once_on_a_stopped_remote_get_one_warning(
        namespace: RemoteNamespace, tmp_path: Path):
    pid = namespace.ask("server", action="resume")["pid"]
    out = _python(namespace, THREADS, _env(tmp_path, "b", POCL, REDIS_PID=str(pid)))
    namespace.ask("server", action="resume")
    assert out == {"misses": 16, "hits": 0, "stderr": out["stderr"]}
    assert out["stderr"].count("using the local store only") == 1, out["stderr"]


def test_another_models_decision_on_the_remote_answers_graded(
        namespace: RemoteNamespace, tmp_path: Path, key: Path):
    """Tune results are read by key, every model's, and graded here as a bundle's are
    (`tune.answers.nearest`): a machine of another device model tunes nothing; binaries stay
    exact-device only, so it builds its kernels."""
    intel, pocl = require_runtime("Intel(R) OpenCL"), require_runtime(POCL)
    _warm(namespace, tmp_path, "a", intel, key)
    run = _python(namespace, RUN_WORKLOAD, _env(tmp_path, "b", pocl, trust=key))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["autotune"]["keys"] == 0 and run["compilation"]["loaded"] == 0
    listed = json.loads(_cli(namespace, _env(tmp_path, "b", pocl, remote=False),
                             "tune", "list", "--json")["stdout"])
    grades = {e["model"].split(" | ")[0]: (e["grade"], e["origin"]) for e in listed["entries"]}
    assert grades["PoCL"][0] in ("vendor", "across") and grades["Intel"] == \
        ("exact", "remote"), grades
