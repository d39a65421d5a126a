"""Batching real-world kernels: each corpus case, batched with its siblings, computes bit for bit
what it computes built alone with plain pyopencl.

The corpus (tests/corpus/) holds kernels written the way CLBlast, ArrayFire, pyopencl, loopy
and image libraries write theirs: typedefs chosen by #if, headers behind include guards or
#pragma once, entry points named by macros, file-scope names that are also vector components,
predefined macros, pragmas, -Werror. Per case and device:

- `test_reference_matches_numpy`: the case built alone with plain pyopencl does what the
  corpus says it does (so the reference the other tests compare against is right);
- `test_alone_matches_reference`: clmodes, the case as the only kernel of its batch;
- `test_with_siblings_matches_reference`: clmodes, the case run from one batch of its whole
  group (all queued under COMPILE_ONLY; built once per device and group, by the first case of
  the group that runs); a case with `partners` (order-sensitive) is then batched with just its
  partners, queued after them, until a build placed a partner before it;
- `test_group_batches` / `test_group_builds_once_per_option_set`: batching efficiency, kept
  apart from correctness: a group needs fewer builds than kernels, ideally one per option set;
- `test_whole_corpus_in_one_queue`: everything the device runs, queued together.

Outputs are compared as raw bytes. The reference is built with a salt comment of its own in
front of the source (comments do not change code; the salt line shifts __LINE__ equally).
Sources are salted per run (`fresh`), one salt per distinct source, so nothing is reused
across tests except the group batches above. About a minute on PoCL, mostly its code
generation at each new program's first launch.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import corpus
from clmodes import Kernel, KernelBuildError, ProcessMode, ProcessModeOverride
from support import fresh
from corpus import CASES, GROUPS, Buffer, Case, Image2D, Local, Sampler, Scalar

MAX_TRIES = 4  # re-runs of an order-sensitive case, stopped early once a partner came first


@pytest.fixture(autouse=True)
def _batch_all(monkeypatch):
    """These tests are about what batching computes on real code: every unit is batched,
    whatever preparing it costs (`batch.costs` would build some big units alone)."""
    monkeypatch.setenv("CLMODES_BATCH_ALL", "1")


def _case_params(cases):
    return [pytest.param(c, id=c.id, marks=[pytest.mark.oclgrind] if c.oclgrind else [])
            for c in cases]


# -- devices and the plain-pyopencl reference ---------------------------------------------------


def unsupported(case: Case, device) -> str | None:
    cl_device = device.cl_device
    extensions = cl_device.extensions.split()
    if "fp64" in case.requires and "cl_khr_fp64" not in extensions:
        return "no cl_khr_fp64"
    if "fp16" in case.requires and "cl_khr_fp16" not in extensions:
        return "no cl_khr_fp16"
    if "images" in case.requires and not cl_device.image_support:
        return "no image support"
    return None


def _skip_unsupported(case: Case, device) -> None:
    reason = unsupported(case, device)
    if reason:
        pytest.skip(f"{case.id}: {reason} on {device.label}")


_reference_queues: dict[str, tuple[cl.Context, cl.CommandQueue]] = {}
_reference_outputs: dict[tuple[str, str], dict[int, np.ndarray]] = {}


def _reference_queue(device) -> cl.CommandQueue:
    """A context and queue of our own: not clmodes' (buffers are created per context)."""
    held = _reference_queues.get(device.label)
    if held is None:
        context = cl.Context([device.cl_device])  # held too: Intel's runtime frees a context
        held = _reference_queues[device.label] = (context, cl.CommandQueue(context))
    return held[1]


def reference(case: Case, device) -> dict[int, np.ndarray]:
    """The case built alone by plain pyopencl and run once on fresh inputs: its checked
    outputs by argument index. Computed once per device and case."""
    key = (device.label, case.id)
    if key not in _reference_outputs:
        queue = _reference_queue(device)
        try:
            program = cl.Program(queue.context, fresh(case.source)).build(
                options=case.build_options(), cache_dir=False)
        except cl.Error as error:
            pytest.fail(f"corpus bug: {case.id} does not build with plain pyopencl on "
                        f"{device.label}:\n{str(error)[:3000]}")
        args, outputs = _arguments(case, queue, for_clmodes=False)
        cl.Kernel(program, case.name)(queue, case.global_size, case.local_size, *args)
        _reference_outputs[key] = _read(outputs)
    return _reference_outputs[key]


# -- arguments --------------------------------------------------------------------------------


_ADDRESSING = {
    "CLAMP_TO_EDGE": cl.addressing_mode.CLAMP_TO_EDGE,
    "CLAMP": cl.addressing_mode.CLAMP,
    "REPEAT": cl.addressing_mode.REPEAT,
    "NONE": cl.addressing_mode.NONE,
}
_FILTER = {"NEAREST": cl.filter_mode.NEAREST, "LINEAR": cl.filter_mode.LINEAR}


def _arguments(case: Case, queue: cl.CommandQueue, for_clmodes: bool):
    """The launch arguments in `queue`'s context, and the arrays to read back afterwards.

    Scalars: clmodes is given the Python int/float (it converts them to the declared type);
    plain pyopencl needs numpy scalars of the declared type."""
    args: list[object] = []
    outputs: dict[int, cla.Array] = {}
    for index, (spec, host) in enumerate(zip(case.args, case.host_args())):
        if isinstance(spec, Buffer):
            array = cla.to_device(queue, host)
            args.append(array.data)
            if spec.check:
                outputs[index] = array
        elif isinstance(spec, Scalar):
            if spec.dtype is None or for_clmodes:
                args.append(spec.value)
            else:
                args.append(np.dtype(spec.dtype).type(spec.value))
        elif isinstance(spec, Local):
            args.append(cl.LocalMemory(spec.nbytes))
        elif isinstance(spec, Image2D):
            args.append(cl.image_from_array(queue.context, host, num_channels=spec.channels,
                                            mode="r"))
        elif isinstance(spec, Sampler):
            args.append(cl.Sampler(queue.context, spec.normalized, _ADDRESSING[spec.addressing],
                                   _FILTER[spec.filter]))
        else:
            raise TypeError(f"{case.id}: unknown argument spec {spec!r}")
    return args, outputs


def _read(outputs: dict[int, cla.Array]) -> dict[int, np.ndarray]:
    return {index: array.get() for index, array in outputs.items()}


def _assert_same_bytes(case: Case, actual: dict[int, np.ndarray], expected: dict[int, np.ndarray],
                       how: str) -> None:
    assert actual.keys() == expected.keys()
    for index in expected:
        if actual[index].tobytes() != expected[index].tobytes():
            differ = np.flatnonzero(actual[index] != expected[index])
            detail = (f"{case.id} ({how}): argument {index} differs from plain pyopencl at "
                      f"{len(differ)} of {actual[index].size} elements; first at {differ[:4]}: "
                      f"got {actual[index][differ[:4]]}, expected {expected[index][differ[:4]]}")
            np.testing.assert_array_equal(actual[index].view(np.uint8),
                                          expected[index].view(np.uint8), err_msg=detail)


# -- clmodes ----------------------------------------------------------------------------------


class Salted:
    """One salt per distinct source for one run: cases of one source (two entry points, or
    two sets of defines) stay one source, as in a real program; nothing is cached across runs."""

    def __init__(self) -> None:
        self._salted: dict[str, str] = {}

    def source(self, case: Case) -> str:
        if case.source not in self._salted:
            self._salted[case.source] = fresh(case.source)
        return self._salted[case.source]

    def salt(self, case: Case) -> str:
        return self.source(case).split("\n", 1)[0]

    def kernel(self, case: Case) -> Kernel:
        return Kernel(self.source(case), case.name, defines=dict(case.defines),
                      options=case.options)


def _launch(stream, kernel: Kernel, case: Case) -> dict[int, np.ndarray]:
    args, outputs = _arguments(case, stream.queue, for_clmodes=True)
    stream.launch(kernel, case.global_size, case.local_size, *args)
    return _read(outputs)


def _device_cases(cases, device) -> list[Case]:
    return [c for c in cases if unsupported(c, device) is None]


def _queue_all(stream, salted: Salted, cases) -> list[tuple[Case, Kernel]]:
    """Queue the cases' kernels under COMPILE_ONLY (launched with real arguments, as a workload
    would). A case whose Kernel cannot even be created is left out (its own test shows it)."""
    queued = []
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        for case in cases:
            try:
                kernel = salted.kernel(case)
            except ValueError:
                continue
            assert _launch_dropped(stream, kernel, case) is None
            queued.append((case, kernel))
    return queued


def _launch_dropped(stream, kernel: Kernel, case: Case):
    args, _ = _arguments(case, stream.queue, for_clmodes=True)
    return stream.launch(kernel, case.global_size, case.local_size, *args)


def _partner_came_first(sources: list[str], salted: Salted, case: Case) -> bool:
    """Whether a build that succeeded placed a partner's source before this case's (found by
    their salts; cases of one source share a salt, so that order is never seen)."""
    mine = salted.salt(case)
    theirs = {salted.salt(corpus.BY_ID[p]) for p in case.partners} - {mine}
    for source in sources:
        at = source.find(mine)
        if at > 0 and any(0 <= source.find(s) < at for s in theirs):
            return True
    return False


@pytest.fixture
def built(build_spy) -> list[str]:
    """The sources of the builds that succeeded (`build_spy` records every attempt, and a
    batch that fails is split: the order inside a failed build produced nothing)."""
    return build_spy.built


# -- correctness ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _case_params(CASES))
def test_reference_matches_numpy(stream, case):
    _skip_unsupported(case, stream.device)
    outputs = reference(case, stream.device)
    assert case.check is not None, f"{case.id} states nothing it computes"
    case.check(case.host_args(), outputs)


@pytest.mark.parametrize("case", _case_params(CASES))
def test_alone_matches_reference(stream, case):
    _skip_unsupported(case, stream.device)
    expected = reference(case, stream.device)
    kernel = Salted().kernel(case)
    _assert_same_bytes(case, _launch(stream, kernel, case), expected, "alone")


_group_batches: dict[tuple[str, str], dict[str, Kernel]] = {}


def _group_batch(stream, group: str) -> dict[str, Kernel]:
    """The group's kernels, all queued together under COMPILE_ONLY once per device: the first
    case run from it builds the whole queue in one batch; the others run from that batch."""
    key = (stream.device.label, group)
    if key not in _group_batches:
        queued = _queue_all(stream, Salted(), _device_cases(GROUPS[group], stream.device))
        _group_batches[key] = {case.id: kernel for case, kernel in queued}
    return _group_batches[key]


@pytest.mark.parametrize("case", _case_params(CASES))
def test_with_siblings_matches_reference(stream, built, case):
    """Run from the batch of its whole group. A case with partners is then batched with just
    them, queued after them, again, until a build that succeeded placed a partner before it
    (batches order their units as they like) or MAX_TRIES times: in the whole group, an
    unrelated unit that breaks the batch gets it split, which can part the case from them."""
    device = stream.device
    _skip_unsupported(case, device)
    expected = reference(case, device)
    kernel = _group_batch(stream, case.group).get(case.id) or Salted().kernel(case)
    group_size = len(_group_batches[(device.label, case.group)])
    _assert_same_bytes(case, _launch(stream, kernel, case), expected,
                       f"batched with the {group_size} kernels of group {case.group!r}")
    partners = _device_cases([corpus.BY_ID[p] for p in case.partners], device)
    for attempt in range(MAX_TRIES if partners else 0):
        first_build = len(built)
        salted = _run_after(stream, case, partners, expected,
                            f"after its partners {[p.id for p in partners]}, try {attempt + 1}")
        if _partner_came_first(built[first_build:], salted, case):
            break


def _run_after(stream, case: Case, siblings: list[Case], expected, how: str) -> Salted:
    """Queue the siblings then the case (COMPILE_ONLY), run the case, compare."""
    salted = Salted()
    _queue_all(stream, salted, siblings)
    kernel = salted.kernel(case)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        _launch_dropped(stream, kernel, case)
    _assert_same_bytes(case, _launch(stream, kernel, case), expected, how)
    return salted


# -- batching efficiency ----------------------------------------------------------------------


_group_runs: dict[tuple[str, str], tuple[int, int, int, list[str]]] = {}


def _obtain_group(stream, build_spy, group: str) -> tuple[int, int, int, list[str]]:
    """Queue a group, then obtain every kernel of it: (builds, kernels, option sets, kernels
    that failed to build). Run once per device and group; both tests below read it."""
    key = (stream.device.label, group)
    if key not in _group_runs:
        cases = _device_cases(GROUPS[group], stream.device)
        salted = Salted()
        before = build_spy.calls
        queued = _queue_all(stream, salted, cases)
        failures = []
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
            for case, kernel in queued:
                try:
                    _launch_dropped(stream, kernel, case)
                except KernelBuildError as error:
                    failures.append(f"{case.id}: {_first_line(error)}")
        batched = {kernel.options for case, kernel in queued if not case.alone}
        alone = sum(1 for case, _ in queued if case.alone)
        _group_runs[key] = (build_spy.calls - before, len(queued), len(batched) + alone, failures)
    return _group_runs[key]


def _first_line(error: Exception) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[:2])[:200]


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_group_batches(stream, build_spy, group):
    """Batching happened: fewer builds than kernels."""
    builds, kernels, option_sets, failures = _obtain_group(stream, build_spy, group)
    assert builds < kernels, (
        f"group {group!r}: {builds} builds for {kernels} kernels ({option_sets} option sets); "
        f"failed: {failures}")


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_group_builds_once_per_option_set(stream, build_spy, group):
    """One build per set of non-define options, plus one per case that must build alone
    (`Case.alone`), and no kernel failing."""
    builds, kernels, option_sets, failures = _obtain_group(stream, build_spy, group)
    assert builds <= option_sets and not failures, (
        f"group {group!r}: {builds} builds for {kernels} kernels in {option_sets} option sets; "
        f"failed: {failures}")


# -- everything at once -----------------------------------------------------------------------


def test_whole_corpus_in_one_queue(stream, build_spy):
    """Every case the device runs, queued together, then each run and compared."""
    device = stream.device
    cases = _device_cases(CASES, device)
    expected = {case.id: reference(case, device) for case in cases}
    salted = Salted()
    before = build_spy.calls
    queued = _queue_all(stream, salted, cases)
    wrong = []
    for case, kernel in queued:
        try:
            actual = _launch(stream, kernel, case)
            _assert_same_bytes(case, actual, expected[case.id], "whole corpus")
        except AssertionError as error:
            detail = [line for line in str(error).splitlines() if line.startswith(case.id)]
            wrong.append((detail or [f"{case.id}: {error}"])[0][:300])
        except Exception as error:  # noqa: BLE001 - collect every case's failure
            wrong.append(f"{case.id}: {type(error).__name__}: {_first_line(error)}")
    left_out = sorted({c.id for c in cases} - {c.id for c, _ in queued})
    builds = build_spy.calls - before
    option_sets = len({kernel.options for _, kernel in queued})
    assert not wrong and not left_out, (
        f"{len(wrong)} of {len(queued)} cases wrong, {builds} builds for {option_sets} option "
        f"sets; not even queued: {left_out}\n" + "\n".join(wrong))
