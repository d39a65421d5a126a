"""Argument info persisted with a binary is hostile data too: a malformed row is a miss
with one warning (the kernel is built from source) in a later process, and a bundle
whose rows do not fit their kernel is refused by the import's load check."""

import dataclasses
import json
import shutil
import sqlite3

from clmodes import bundle

from support.bundles import public
from support.subprocesses import run_python

SOURCE = "__kernel void scale(__global float *a, float s) { a[get_global_id(0)] *= s; }"
WORK = f"""
import json, logging, numpy as np, pyopencl.array as cla, clmodes
logging.basicConfig(level=logging.WARNING, format="LOG %(levelname)s %(message)s")
KERNEL = clmodes.Kernel({SOURCE!r}, "scale")
def work():
    stream = clmodes.client().stream()
    a = cla.to_device(stream.queue, np.ones(4, np.float32))
    stream.launch(KERNEL, (4,), None, a.data, 3.0)
    return a
"""
WARM = WORK + "clmodes.warm(work)\n"
RUN = WORK + """
c = clmodes.StatisticsCollector()
with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):
    values = work().get().tolist()
s = clmodes.StatisticsReader(c).statistics().compilation
print(json.dumps({"values": values, "compiled": s.compiled, "loaded": s.loaded}))
"""

MALFORMED = ['[]', '[["a"]]', '[[1, 2, 3]]', '[["a", "float*", 1]]', '{"a": 1}',
             '[["a", "float*", true]]',  # one row for a kernel of two arguments
             '[["a", "float*", true], ["s", "float", false], ["t", "int", false]]']


def run(code, cache, device):
    out = run_python(code, cache, CLMODES_DEVICE=device.label)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def test_malformed_stored_argument_info_is_a_miss_with_one_warning(client, tmp_path):
    """Each once ended every later run in an IndexError (or a segfault)."""
    warm = tmp_path / "warm"
    run(WARM, warm, client.device)
    assert run(RUN, warm, client.device).stdout.strip().endswith(
        '"compiled": 0, "loaded": 1}')  # the store serves it as it is
    for number, args in enumerate(MALFORMED):
        cache = tmp_path / f"case-{number}"
        shutil.copytree(warm, cache)
        with sqlite3.connect(next(cache.glob("*.sqlite3"))) as db:
            assert db.execute("UPDATE kernels SET args = ?", (args,)).rowcount == 1
        out = run(RUN, cache, client.device)
        report = json.loads(out.stdout.strip().splitlines()[-1])
        assert report == {"values": [3.0] * 4, "compiled": 1, "loaded": 0}, (args, out.stderr)
        warnings = [line for line in out.stderr.splitlines() if line.startswith("LOG WARNING")]
        assert len(warnings) == 1 and "argument info" in warnings[0] and "malformed" in warnings[0], (
            args, out.stderr)


def test_a_bundle_whose_argument_info_does_not_fit_its_kernel_is_refused_by_the_load_check(
        client, tmp_path, signing_key):
    """Well-formed rows, signed by a trusted key, but one row for a kernel of two
    arguments: the load check creates the kernel and counts."""
    warm = tmp_path / "warm"
    run(WARM, warm, client.device)
    from clmodes.bundle.compiling import compiled
    from clmodes.store import Store

    entries = compiled(Store(warm).entries())  # as export ships them: binaries, no records
    (row,) = entries.kernels
    assert len(json.loads(row.args)) == 2
    wrong = dataclasses.replace(entries, kernels=[dataclasses.replace(row, args='[["a", "float*", true]]')])
    for made, rows, refused in (("good", entries, False), ("bad", wrong, True)):
        path = tmp_path / f"{made}.clmodes"
        bundle._write(path, rows, sign=signing_key)
        user = Store(tmp_path / f"user-{made}")
        report = bundle.install(path, user, local=[client.device], trusted_keys=[public(signing_key)])
        assert report["added"]["kernels"] == (0 if refused else 1), report
        if refused:
            (refusal,) = report["refused"]
            assert "takes 2 arguments; its argument info describes 1" in refusal["reason"], refusal
        else:
            assert report["refused"] == []
