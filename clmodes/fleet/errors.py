"""The fleet's user errors: no Ray, no cluster, no device anywhere, a bad argument."""

from __future__ import annotations

from clmodes.errors import ClmodesError

RAY_HINT = "pip install 'clmodes[fleet]'"


class FleetError(ClmodesError):
    """Something a person fixes before a fleet command can run (one line)."""
