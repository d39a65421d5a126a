"""`python -m kernels_cl [--help]`: what the example package is and the environment
variables its workloads read (`kernels_cl.settings`), apart from `clmodes --help`."""

from __future__ import annotations

import argparse

from clmodes.settings import help_text
from kernels_cl.settings import KNOBS


def parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog="python -m kernels_cl",
        description="Tunable OpenCL kernels and example workloads for clmodes:\n"
                    "clmodes warm kernels_cl.workloads:mlp (or :attention); docs/kernels_cl.md.",
        epilog=help_text(KNOBS), formatter_class=argparse.RawDescriptionHelpFormatter)


def main(argv: list[str] | None = None) -> int:
    """Print the help (the only thing it does; `--help` prints it too)."""
    command = parser()
    command.parse_args(argv)
    command.print_help()
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
