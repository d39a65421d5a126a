"""The command line: every verb, its flags, and the function that runs it.

Kept apart from the verbs so that `clmodes --help` reads as one table of contents, and
so that every verb gets `--json` (and `--device` where it works on one device) the same
way. Each sub-parser stores its verb function as `run`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from clmodes import __version__
from clmodes.cli import bundle, cache, fleet
from clmodes.cli.demo import run_demo
from clmodes.cli.devices import run_devices
from clmodes.cli.probe import run_probe
from clmodes.cli.warm import run_warm

Verb = Callable[[argparse.Namespace], int]
# argparse's `_SubParsersAction` is private; only its `add_parser` is used here.
SubParsers = Any


def add_verb(parent: SubParsers, name: str, run: Verb, help: str,
             device: bool = False) -> argparse.ArgumentParser:
    """A sub-parser for `run`, with `--json` and, if asked, `--device`."""
    sub = parent.add_parser(name, help=help)
    sub.add_argument("--json", action="store_true", help="machine-readable output")
    if device:
        sub.add_argument("--device", default=None,
                         help="device index or substring of 'platform / device'")
    sub.set_defaults(run=run)
    return sub


def build_parser() -> argparse.ArgumentParser:
    """The `clmodes` parser; `parse_args(...).run(args)` runs the chosen verb."""
    parser = argparse.ArgumentParser(prog="clmodes", description="OpenCL execution modes")
    parser.add_argument("--version", action="version", version=__version__)
    verbs = parser.add_subparsers(dest="verb", required=True)
    add_verb(verbs, "devices", run_devices, "list OpenCL devices and their fingerprints")
    warm = add_verb(verbs, "warm", run_warm, "compile, tune and persist a workload's kernels",
                    device=True)
    warm.add_argument("workload", help="MODULE:FUNCTION, a zero-argument callable")
    warm.add_argument("--allow-memory", action="store_true",
                      help="run even if the store fell back to memory (nothing is kept)")
    _add_cache(verbs)
    _add_bundle(verbs)
    _add_fleet(verbs)
    add_verb(verbs, "demo", run_demo, "a COMPILE_ONLY pass, one batch build, statistics",
             device=True)
    probe = add_verb(verbs, "probe", run_probe,
                     "the device's peak bandwidth and compute (measured once, cached)",
                     device=True)
    probe.add_argument("--refresh", action="store_true",
                       help="measure again, replace the cached result")
    return parser


def _add_cache(verbs: SubParsers) -> None:
    actions = verbs.add_parser("cache", help="the store").add_subparsers(
        dest="action", required=True)
    add_verb(actions, "info", cache.run_cache_info,
             "location, entries per device and kind, bytes")
    add_verb(actions, "clear", cache.run_cache_clear,
             "delete entries (of one device model with --device)", device=True)


def _add_bundle(verbs: SubParsers) -> None:
    actions = verbs.add_parser("bundle", help="cache bundles to ship").add_subparsers(
        dest="action", required=True)
    export = add_verb(actions, "export", bundle.run_export,
                      "write the store (or one device's entries) to FILE", device=True)
    export.add_argument("file")
    add_verb(actions, "import", bundle.run_import,
             "fill the local store from FILE").add_argument("file")
    add_verb(actions, "inspect", bundle.run_inspect,
             "what FILE holds and how it matches here").add_argument("file")
    merged = add_verb(actions, "merge", bundle.run_merge, "combine bundles into OUT")
    merged.add_argument("-o", "--output", dest="out", required=True, metavar="OUT",
                        help="the merged bundle to write (never one of the inputs)")
    merged.add_argument("inputs", nargs="+", metavar="IN", help="bundles to merge")
    merged.add_argument("--force", action="store_true", help="replace OUT if it exists")


def _add_fleet(verbs: SubParsers) -> None:
    actions = verbs.add_parser(
        "fleet", help="warm on every device of a Ray cluster (pip install 'clmodes[fleet]')",
    ).add_subparsers(dest="action", required=True)
    listed = add_verb(actions, "devices", fleet.run_fleet_devices,
                      "every node's OpenCL devices, grouped by exact fingerprint")
    listed.add_argument("--address", default=None,
                        help="the Ray cluster (host:port); default $RAY_ADDRESS or this machine's")
    warm = add_verb(actions, "warm", fleet.run_fleet_warm,
                    "warm MODULE:FUNCTION once per distinct device, merge into OUT")
    warm.add_argument("workload", help="MODULE:FUNCTION, importable on every node")
    warm.add_argument("-o", "--output", dest="out", required=True, metavar="OUT",
                      help="the merged bundle to write")
    warm.add_argument("--address", default=None,
                      help="the Ray cluster (host:port); default $RAY_ADDRESS or this machine's")
    warm.add_argument("--per", choices=["exact", "model"], default="exact",
                      help="one target per exact fingerprint (binaries) or per model (tunes)")
    warm.add_argument("--allow-partial", action="store_true",
                      help="write OUT from the targets that succeeded (exit status 3)")
    warm.add_argument("--force", action="store_true", help="replace OUT if it exists")
    warm.add_argument("--working-dir", default=None, metavar="DIR",
                      help="ship DIR to the nodes as Ray's runtime_env working_dir")
