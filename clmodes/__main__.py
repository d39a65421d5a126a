"""`python -m clmodes`: the same command as the `clmodes` script."""

from clmodes.cli import run

run()
