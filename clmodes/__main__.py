import sys

from clmodes.cli import main

sys.exit(main())
