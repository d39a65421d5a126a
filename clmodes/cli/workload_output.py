"""Where a workload's own output goes while a command's `--json` report owns standard
output: to standard error.

The trap: `clmodes warm W --json` and `clmodes check W --json` print one JSON document
on standard output, and a workload that prints ("step 1 ...") or a compiler that writes
("4 warnings generated.", from C, to file descriptor 1) made that document unparseable.
Redirecting `sys.stdout` alone misses what C code writes, so the descriptor itself points
at standard error while the workload runs, and back afterwards.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def to_stderr(active: bool) -> Iterator[None]:
    """While the block runs (if `active`), standard output, Python's and the process's
    file descriptor 1, goes to standard error."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)
