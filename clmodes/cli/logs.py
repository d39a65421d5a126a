"""How loud the command is: `-v`/`-q` and `$CLMODES_LOG` set the `clmodes` logger's level.

The library only logs (`logging.getLogger("clmodes")`) and never configures logging: an
application decides where its logs go. The command is such an application, so it
configures that one logger here, and nothing else (not the root logger: a workload's own
logging stays its own). `$CLMODES_LOG` sets the level; each `-v` makes it one step
louder, each `-q` one step quieter, so `CLMODES_LOG=info clmodes -q warm ...` shows
warnings. Without either, warnings and errors show, as they would without any
configuration.
"""

from __future__ import annotations

import logging
import sys

from clmodes import settings
from clmodes.cli.errors import UsageError

LEVELS = settings.LOG_LEVELS  # loudest first
DEFAULT = settings.LOG.default
FORMAT = "%(name)s %(levelname)s: %(message)s"


class StandardError(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler writing to whatever `sys.stderr` is when a record is emitted (a handler
    made with `StreamHandler(sys.stderr)` keeps the stream it saw at set-up)."""

    @property  # type: ignore[override]
    def stream(self):  # noqa: ANN201 - the stream logging writes to
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


def level_name(verbose: int, quiet: int, environment: str | None = None) -> str:
    """The level `$CLMODES_LOG` and the flags ask for, or a one-line `UsageError`."""
    try:
        base = settings.LOG.get() if environment is None else settings.LOG.read(environment)
    except settings.SettingError as error:
        raise UsageError(str(error)) from None
    index = LEVELS.index(base) - verbose + quiet
    return LEVELS[min(max(index, 0), len(LEVELS) - 1)]


def configure(verbose: int = 0, quiet: int = 0) -> str:
    """Give the `clmodes` logger a level and one handler on standard error; return the
    level's name. Idempotent: a second call replaces the handler the first one added."""
    name = level_name(verbose, quiet)
    logger = logging.getLogger("clmodes")
    for handler in [h for h in logger.handlers if isinstance(h, StandardError)]:
        logger.removeHandler(handler)
    handler = StandardError()
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    logger.setLevel(name.upper())
    logger.propagate = False  # one line per record, not one more from a root handler
    return name
