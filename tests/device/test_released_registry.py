"""The released-buffer registry: installed lazily, safe when threads release at once."""

from __future__ import annotations

import threading

import pyopencl as cl

import clmodes
from clmodes import released
from support.subprocesses import run_python


def test_importing_clmodes_leaves_pyopencl_as_it_was(tmp_path):
    code = ("import pyopencl as cl, clmodes; before = getattr(cl.MemoryObject.release, "
            "'clmodes_wrapped', False); clmodes.client(); "
            "print(before, getattr(cl.MemoryObject.release, 'clmodes_wrapped', False))")
    out = run_python(code, cache_dir=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]


def test_threads_releasing_across_sweeps_never_raise(client: clmodes.Client):
    """Eight threads each release 200 buffers they keep, the registry sweeping as it
    doubles: no release raises, and every one of them is still known released."""
    errors: list[BaseException] = []
    kept: list[list[cl.Buffer]] = [[] for _ in range(8)]

    def release_many(mine: list[cl.Buffer]) -> None:
        try:
            for _ in range(200):
                buffer = cl.Buffer(client.context, cl.mem_flags.READ_WRITE, 16)
                buffer.release()
                mine.append(buffer)
        except BaseException as error:  # noqa: BLE001 - the test reports it
            errors.append(error)

    threads = [threading.Thread(target=release_many, args=(mine,)) for mine in kept]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert all(released.is_released(b) for mine in kept for b in mine)
