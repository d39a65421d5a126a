"""The compiler's output of a build clmodes issues goes to the `clmodes` logger.

pyopencl turns any non-empty build log into a `CompilerWarning`, printed by Python's
warnings machinery: a warmed process loading binaries printed it once per load, and a
library must not print. So clmodes' own builds run under a scoped
`warnings.catch_warnings` that hands their `CompilerWarning`s to the logger (DEBUG, with
what was built), and shows any other warning as it would have been shown. No global
filter: a user's own pyopencl builds warn as they always did.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import pyopencl as cl

log = logging.getLogger("clmodes")


@contextmanager
def logged(what: str) -> Iterator[None]:
    """Run a build; its `CompilerWarning`s are logged (naming `what`), not printed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", cl.CompilerWarning)
        try:
            yield
        finally:
            shown = list(caught)
    for warning in shown:
        if issubclass(warning.category, cl.CompilerWarning):
            log.debug("compiler output of %s: %s", what, warning.message)
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno, source=warning.source)
