"""Loading a workload named `MODULE:FUNCTION`: what `clmodes warm`, `clmodes check` and
the fleet's nodes run.

A library module, not the CLI's: a fleet node loads workloads too, and the node code
importing the CLI (which imports the fleet) was a package cycle the module-level checker
could not see (`ci/check_architecture.py` now checks the layer order).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable

from clmodes.errors import ClmodesError


class WorkloadError(ClmodesError):
    """A `MODULE:FUNCTION` that names no callable: one line saying which part is wrong."""


def load_workload(target: str) -> Callable[[], object]:
    """`package.module:function` -> the function, or a one-line `WorkloadError`.

    The current directory is importable, as it is for `python -m`: a workload is usually
    a module of the project the command is run in, not an installed package."""
    module_name, sep, function_name = target.partition(":")
    if not sep or not module_name or not function_name:
        raise WorkloadError(f"expected MODULE:FUNCTION, got {target!r}")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise WorkloadError(f"cannot import module {module_name!r}: {error}") from error
    workload = getattr(module, function_name, None)
    if workload is None:
        raise WorkloadError(f"module {module_name!r} has no function {function_name!r}")
    if not callable(workload):
        raise WorkloadError(f"{target} is not callable")
    loaded: Callable[[], object] = workload
    return loaded
