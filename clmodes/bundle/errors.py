"""The one error a bundle operation raises for a bad file."""

from __future__ import annotations

from clmodes.errors import ClmodesError


class BundleError(ClmodesError):
    """A file that is not a valid bundle; the message names the file and what is wrong."""
