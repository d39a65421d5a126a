"""User errors: what the command tells a person in one line, never in a traceback.

A user error is anything the person at the terminal can fix (no device, an unknown
module or function, a bad argument): the library raises `ClmodesError` for those, the
command adds `UsageError` for its own. Either ends the command with one line on standard
error and exit status 2, the same status argparse uses for a usage mistake, so scripts
see one "you asked for something wrong" code. Any other exception is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from clmodes.errors import ClmodesError

USER_ERROR = 2  # argparse's own status for a usage mistake


class UsageError(ClmodesError):
    """A mistake on the command line that argparse cannot see (`warm tunables`)."""


def one_line(error: ClmodesError) -> str:
    """The message a person reads: the error's first line, named as the command's.
    Library messages may carry detail on later lines (a build log); the log has it."""
    lines = str(error).splitlines()
    return f"clmodes: {lines[0] if lines else type(error).__name__}"


def run_verb(verb: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run `verb`; turn a user error into its one line on standard error and status 2."""
    try:
        return verb(args)
    except ClmodesError as error:
        print(one_line(error), file=sys.stderr)
        return USER_ERROR
