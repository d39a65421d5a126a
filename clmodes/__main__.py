"""`python -m clmodes`: the same command as the `clmodes` script."""

import sys

from clmodes.cli import main

sys.exit(main())
