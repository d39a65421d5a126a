"""Every verb of the `clmodes` command, walked from its parser (the CLI tests and the
contract doc's test read the same list)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from clmodes.cli.parser import build_parser


def verbs(parser: argparse.ArgumentParser | None = None,
          path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """(path, parser) of every verb: the sub-parsers that have no sub-parsers themselves."""
    parser = parser or build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from verbs(sub, (*path, name))
