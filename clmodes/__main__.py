"""`python -m clmodes`: the same command as the `clmodes` script (`clmodes_start.run`).
Python has imported the package before this line runs, so a signal in that import is
Python's own; from here on it is the command's one line."""

from clmodes_start import run

run()
