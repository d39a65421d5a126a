"""`clmodes run`: pyopencl programs as their authors wrote them (pyopencl's own examples,
`tests/corpus/pyopencl_upstream`, which make their context with
`cl.create_some_context()`), unchanged. Under `clmodes run` each prints what it prints
alone and exits as it exits; a second, `--strict` run builds nothing from source; a fresh
store given a bundle exported from the first does the same. On PoCL and Intel's runtime,
chosen the way such programs are pointed at a device: `PYOPENCL_CTX`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.pyopencl_corpus import CORPUS, EXAMPLES, PROGRAMS, Program
from support.subprocesses import RUNTIMES, environment, pyopencl_ctx, run_cli

EXIT_WITH = """
import sys, numpy as np, pyopencl as cl, pyopencl.array as cla
ctx = cl.create_some_context(interactive=False)
x = cla.to_device(cl.CommandQueue(ctx), np.arange(8, dtype=np.float32))
print("sum", float(cla.sum(x * 2).get()), sys.argv[1:])
sys.exit(int(sys.argv[1]))
"""

# One kernel, written as loopy writes it, in the loop order argv[1] names: the text a code
# generator emits for the same kernel changes with its own cache.
LOOPY_STYLE = """
import sys, numpy as np, pyopencl as cl
body = {"ij": "for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) acc += i * j;",
        "ji": "for (int j = 0; j < 2; ++j) for (int i = 0; i < 2; ++i) acc += i * j;"}
source = ("__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel("
          "__global float *out) { float acc = 0; " + body[sys.argv[1]] + " out[0] = acc; }")
ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4)
cl.Program(ctx, source).build().loopy_kernel(queue, (1,), (1,), out)
got = np.zeros(1, np.float32)
cl.enqueue_copy(queue, got, out)
print("acc", got[0])
"""


def same_output(a: str, b: str) -> bool:
    """The same lines, where a number in exponent notation below 1e-3 (the examples
    print the error norm of unseeded random inputs: 1.3e-06 in one plain run, 9.6e-07 in
    the next) reads as "small" in both."""
    def small(text: str) -> str:
        return re.sub(r"-?\d+\.\d+e[-+]\d+",
                      lambda m: "<small>" if abs(float(m.group())) < 1e-3 else m.group(), text)
    return small(a) == small(b)


def same_masked(a: str, b: str, program: Program) -> bool:
    """The same output once what `program.varies` names is masked in both (`Program`),
    whitespace ignored (numpy spaces and wraps an array by the widths of its values), and
    the program's own check line (`program.prints`) in both as it is."""
    if program.varies is None:
        return a == b

    def masked(text: str) -> str:
        return re.sub(r"\s+", "", re.sub(program.varies, "<masked>", text))
    checked = program.prints is None or (program.prints in a.splitlines()
                                         and program.prints in b.splitlines())
    return checked and masked(a) == masked(b)


def headless() -> dict[str, str]:
    """No display (demo_mandelbrot.py shows its image with tkinter when it can)."""
    return {"DISPLAY": "", "WAYLAND_DISPLAY": ""}


def plain(script: Path, ctx: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *args], cwd=script.parent,
                          env=environment(None, PYOPENCL_CTX=ctx, **headless()),
                          capture_output=True, text=True, timeout=600)


def run(store: Path, ctx: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    if cwd is None:
        return run_cli(store, "run", *args, PYOPENCL_CTX=ctx)
    return subprocess.run([sys.executable, "-m", "clmodes", "run", *args], cwd=cwd,
                          env=environment(store, PYOPENCL_CTX=ctx, **headless()),
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("runtime", sorted(RUNTIMES))
def test_examples_unchanged_start_warm_here_and_from_a_bundle(tmp_path: Path, runtime: str):
    ctx = pyopencl_ctx(runtime)
    first, second = tmp_path / "first", tmp_path / "second"
    for name in EXAMPLES:
        script = CORPUS / name
        alone = plain(script, ctx)
        assert alone.returncode == 0, alone.stderr
        cold = run(first, ctx, "--report", str(tmp_path / "cold.json"), str(script))
        assert cold.returncode == 0 and same_output(cold.stdout, alone.stdout), (
            cold.stdout, alone.stdout, cold.stderr)
        report = json.loads((tmp_path / "cold.json").read_text())
        assert report["compilation"]["compiled"] >= 1 and report["persisted"] >= 1, name
        warm = run(first, ctx, "--strict", "--report", str(tmp_path / "warm.json"), str(script))
        assert warm.returncode == 0 and same_output(warm.stdout, alone.stdout), (
            warm.stdout, alone.stdout, warm.stderr)
        report = json.loads((tmp_path / "warm.json").read_text())
        assert report["built"] == [] and report["compilation"]["compiled"] == 0, name
        assert report["compilation"]["loaded"] >= 1, name
    bundle = tmp_path / "programs.clmb"
    assert run_cli(first, "bundle", "export", str(bundle)).returncode == 0
    assert run_cli(second, "bundle", "import", str(bundle), "--allow-unsigned").returncode == 0
    for name in EXAMPLES:
        shipped = run(second, ctx, "--strict", str(CORPUS / name))
        assert shipped.returncode == 0, f"{name}: {shipped.stderr}"


@pytest.mark.parametrize("runtime", sorted(RUNTIMES))
def test_more_programs_unchanged_start_warm_here_and_from_a_bundle(tmp_path: Path, runtime: str):
    """pyopencl's other examples and programs from other repositories (`PROGRAMS`), each
    run in its own folder as its author runs it (they open files next to them): the same
    flow as above, one store for all of them. Outputs of programs that print timings or
    unseeded random values are compared with those masked (`same_masked`)."""
    ctx = pyopencl_ctx(runtime)
    first, second = tmp_path / "first", tmp_path / "second"
    for program in PROGRAMS:
        script, name = program.path, program.name
        alone = plain(script, ctx, *program.args)
        assert alone.returncode == 0, (name, alone.stderr)
        cold = run(first, ctx, "--report", str(tmp_path / "cold.json"), str(script),
                   *program.args, cwd=script.parent)
        assert cold.returncode == 0 and same_masked(cold.stdout, alone.stdout, program), (
            name, cold.stdout, alone.stdout, cold.stderr)
        report = json.loads((tmp_path / "cold.json").read_text())
        if program.builds:
            assert report["compilation"]["compiled"] >= 1 and report["persisted"] >= 1, name
        warm = run(first, ctx, "--strict", "--report", str(tmp_path / "warm.json"), str(script),
                   *program.args, cwd=script.parent)
        assert warm.returncode == 0 and same_masked(warm.stdout, alone.stdout, program), (
            name, warm.stdout, alone.stdout, warm.stderr)
        report = json.loads((tmp_path / "warm.json").read_text())
        assert report["built"] == [] and report["compilation"]["compiled"] == 0, name
        assert report["compilation"]["loaded"] >= (1 if program.builds else 0), name
    bundle = tmp_path / "programs.clmb"
    assert run_cli(first, "bundle", "export", str(bundle)).returncode == 0
    assert run_cli(second, "bundle", "import", str(bundle), "--allow-unsigned").returncode == 0
    for program in PROGRAMS:
        shipped = run(second, ctx, "--strict", "--report", str(tmp_path / "shipped.json"),
                      str(program.path), *program.args, cwd=program.path.parent)
        assert shipped.returncode == 0, f"{program.name}: {shipped.stderr}"
        report = json.loads((tmp_path / "shipped.json").read_text())
        assert report["built"] == [] and report["compilation"]["compiled"] == 0, program.name


def test_status_arguments_and_strict_on_a_cold_store(tmp_path: Path):
    ctx = pyopencl_ctx("intel")
    script = tmp_path / "exit_with.py"
    script.write_text(EXIT_WITH)
    alone = plain(script, ctx, "3")
    ran = run(tmp_path / "store", ctx, str(script), "3")
    assert (ran.returncode, ran.stdout) == (alone.returncode, alone.stdout) == (3, alone.stdout)
    assert "sum 56.0 ['3']" in ran.stdout
    strict = run(tmp_path / "cold", ctx, "--strict", str(script), "0")
    assert strict.returncode == 1 and strict.stdout == plain(script, ctx, "0").stdout
    lines = [x for x in strict.stderr.splitlines() if x.startswith("clmodes run --strict: ")]
    assert lines and all("built from source" in x for x in lines), strict.stderr
    again = run(tmp_path / "cold", ctx, "--strict", str(script), "0")
    assert again.returncode == 0, again.stderr
    missing = run(tmp_path / "store", ctx, str(tmp_path / "nowhere.py"))
    assert missing.returncode == 2 and missing.stderr.strip().splitlines() == [
        f"clmodes: clmodes run: no such script: {tmp_path / 'nowhere.py'}"]


def test_a_kernel_with_attributes_is_named_and_another_text_of_it_says_the_source_differs(
        tmp_path: Path):
    ctx = pyopencl_ctx("intel")
    script = tmp_path / "loopy_style.py"
    script.write_text(LOOPY_STYLE)
    store, report = tmp_path / "store", tmp_path / "report.json"
    first = run(store, ctx, "--strict", "--report", str(report), str(script), "ij")
    assert first.returncode == 1 and "acc 1.0" in first.stdout, first.stderr
    assert [m["name"] for m in json.loads(report.read_text())["built"]] == ["loopy_kernel"]
    lines = [x for x in first.stderr.splitlines() if x.startswith("clmodes run --strict: ")]
    assert lines and all("loopy_kernel" in x and "__attribute__" not in x for x in lines), first.stderr
    other = run(store, ctx, "--strict", str(script), "ji")
    assert other.returncode == 1 and "acc 1.0" in other.stdout, other.stderr
    found = re.search(r"the stored 'loopy_kernel' differs in its source text "
                      r"\(([0-9a-f]{12}) -> ([0-9a-f]{12})\)", other.stderr)
    assert found and found.group(1) != found.group(2), other.stderr


RAISES = """
def inner():
    raise ValueError("the program's own error")

inner()
"""


def frames(stderr: str) -> list[str]:
    return [x.strip() for x in stderr.splitlines() if x.strip().startswith('File "')]


def test_a_programs_traceback_shows_its_own_frames_only_as_python_does(tmp_path: Path):
    """Not clmodes' `_execute` and runpy's three frames above the program's."""
    ctx = pyopencl_ctx("intel")
    script = tmp_path / "raises.py"
    script.write_text(RAISES)
    alone, ran = plain(script, ctx), run(tmp_path / "store", ctx, str(script))
    assert (ran.returncode, alone.returncode) == (1, 1)
    assert frames(ran.stderr) == frames(alone.stderr) != [], ran.stderr
    assert frames(ran.stderr)[0].startswith(f'File "{script}"'), ran.stderr
    assert ran.stderr.splitlines()[-1] == "ValueError: the program's own error"


# Builds and runs one program, then Ctrl-C reaches it (as a CI job's cancel does).
INTERRUPTED = EXIT_WITH.replace("sys.exit(int(sys.argv[1]))", """
import os, signal, time
os.kill(os.getpid(), signal.SIGINT)
time.sleep(60)
""")


def test_an_interrupted_run_still_writes_its_report_marked_interrupted(tmp_path: Path):
    ctx = pyopencl_ctx("intel")
    script, report = tmp_path / "interrupted.py", tmp_path / "report.json"
    script.write_text(INTERRUPTED)
    ran = run(tmp_path / "store", ctx, "--report", str(report), str(script))
    assert ran.returncode == 130 and "interrupted (Ctrl-C)" in ran.stderr, ran.stderr
    written = json.loads(report.read_text())
    assert written["interrupted"] is True and written["status"] == 130
    assert written["built"] and written["compilation"]["compiled"] > 0, written
