"""`clmodes.warming.failure_of`: the workload's exception as data, placed at the
workload's own line even when a library raised it (numpy's testing helpers)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import clmodes
from clmodes.warming import failure_line, failure_of, is_verdict

HERE = __file__


def _line_of(marker: str) -> int:
    with open(HERE) as source:
        return next(i for i, line in enumerate(source, 1) if marker in line)


def _caught(function) -> BaseException:
    try:
        function()
    except Exception as error:  # noqa: BLE001 - the test's subject
        return error
    raise AssertionError("did not raise")


def _numpy_check() -> None:
    np.testing.assert_allclose(np.zeros(3), np.ones(3))  # marker: numpy check


def _plain_assert() -> None:
    assert 1 == 2, "one is\nnot two"  # marker: plain assert


def test_the_workloads_own_line_is_named_not_numpys():
    failure = failure_of(_caught(_numpy_check), clmodes.WarmPass.GATHERING)
    assert failure.type == "AssertionError"
    assert failure.where.endswith(f"test_workload_failure.py:{_line_of('marker: numpy check')}")


def test_one_line_with_type_message_place_and_pass():
    failure = failure_of(_caught(_plain_assert), clmodes.WarmPass.TUNING)
    assert failure.message == "one is"  # the first line only
    where = f"test_workload_failure.py:{_line_of('marker: plain assert')}"
    assert failure.describe().startswith("AssertionError ('one is') at ")
    line = failure_line(failure)
    assert "\n" not in line and where in line and "during the tuning pass" in line
    assert json.loads(json.dumps(clmodes.ExecutionStatistics(workload_error=failure).as_dict())
                      )["workload_error"]["phase"] == "tuning"


@pytest.mark.parametrize("error, verdict", [
    (ValueError("x"), False), (clmodes.KernelBuildError("k", "dev", "1:2: error: bad"), True),
    (clmodes.TuneError("none measured"), True), (KeyError("k"), False)])
def test_clmodes_verdicts_are_not_the_workloads_own_errors(error, verdict):
    assert is_verdict(error) is verdict


def test_a_failure_is_frozen():
    failure = failure_of(_caught(_plain_assert), clmodes.WarmPass.GATHERING)
    with pytest.raises(Exception):
        failure.type = "other"  # type: ignore[misc]
    assert sys.modules["clmodes"].WorkloadFailure is type(failure)
