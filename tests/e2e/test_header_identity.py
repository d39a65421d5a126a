"""An included file is part of a kernel's identity (issue 24, item 1).

Each case is a sequence of fresh processes sharing one store, on PoCL and on Intel's CPU
runtime: a header edited between them must never be answered with the old text's binary
or the old text's measurements. `support.headers` holds the kernels."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from support.subprocesses import RUNTIMES, last_json, require_runtime, run_python


@pytest.fixture(params=list(RUNTIMES.values()), ids=list(RUNTIMES))
def runtime(request) -> str:
    return require_runtime(request.param)


def headers(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "include"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.h").write_text(text)
    return folder


def run(store: Path, runtime: str, folder: Path, warm: bool = False) -> dict:
    code = f"from support import headers; print(headers.run({str(folder)!r}, warm={warm!r}))"
    return last_json(run_python(code, store, CLMODES_DEVICE=runtime))


def tune(store: Path, runtime: str, name: str, folder: Path) -> dict:
    code = f"from support import headers; print(headers.tune({name!r}, {str(folder)!r}))"
    return last_json(run_python(code, store, CLMODES_DEVICE=runtime))


def test_an_edited_header_compiles_the_new_text(tmp_path, runtime):
    folder = headers(tmp_path, val="#define VAL 1.0f\n")
    store = tmp_path / "store"
    assert run(store, runtime, folder, warm=True)["compiled"] == 2
    unchanged = run(store, runtime, folder)
    assert unchanged["values"] == [1.0, 11.0]
    assert unchanged["compiled"] == 0 and unchanged["loaded"] == 2
    headers(tmp_path, val="#define VAL 2.0f\n")
    edited = run(store, runtime, folder)
    # Both the batched kernel and the one that builds alone see the new header.
    assert edited["values"] == [2.0, 12.0], "an edited header must not load the old binary"
    assert edited["compiled"] == 2 and edited["loaded"] == 0
    assert run(store, runtime, folder, warm=True)["compiled"] == 2
    rewarmed = run(store, runtime, folder)
    assert rewarmed["values"] == [2.0, 12.0]
    assert rewarmed["compiled"] == 0 and rewarmed["loaded"] == 2


def test_an_edited_nested_header_compiles_the_new_text(tmp_path, runtime):
    folder = headers(tmp_path, val='#include "inner.h"\n', inner="#define VAL 1.0f\n")
    store = tmp_path / "store"
    run(store, runtime, folder, warm=True)
    headers(tmp_path, inner="#define VAL 2.0f\n")
    edited = run(store, runtime, folder)
    assert edited["values"] == [2.0, 12.0]
    assert edited["compiled"] == 2 and edited["loaded"] == 0


def test_a_header_edit_measures_again_only_the_candidate_including_it(tmp_path, runtime):
    name = f"headers-{uuid.uuid4().hex[:8]}"
    folder = headers(tmp_path, a="#define SCALE 2.0f\n", b="#define SCALE 2.0f\n")
    store = tmp_path / "store"
    first = tune(store, runtime, name, folder)
    assert first["keys"] == 1 and first["measured_here"] == 2 and first["ok"]
    assert tune(store, runtime, name, folder)["keys"] == 0
    headers(tmp_path, b="#define SCALE (1.0f + 1.0f)\n")
    edited = tune(store, runtime, name, folder)
    assert edited["keys"] == 1 and edited["ok"]
    assert edited["measured_here"] == 1, "only the candidate whose header changed re-measures"
    assert edited["identities"]["a"] == first["identities"]["a"]
    assert edited["identities"]["b"] != first["identities"]["b"]
