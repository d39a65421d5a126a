"""The size grammar, kept importable under its old name: it moved to `clmodes.sizes` (the
lowest layer) so that `clmodes.settings` can parse `$CLMODES_CACHE_MAX_SIZE` and
`$CLMODES_BUNDLE_MAX_SIZE` with it without importing the store."""

from clmodes.sizes import LONGEST, SIZE, UNITS, SizeError, parse_size, shown

__all__ = ["LONGEST", "SIZE", "UNITS", "SizeError", "parse_size", "shown"]
