"""The command line: every verb, its flags, and the function that runs it.

Kept apart from the verbs so that `clmodes --help` reads as one table of contents, and
so that every verb gets `--json`, `-v`/`-q` (and `--device` where it works on one device)
the same way, from `add_verb`. Each sub-parser stores its verb function as `run`.

The flags every verb takes are accepted before the verb too (`clmodes --json cache
info`): the top parser defines them with their defaults and the verbs' copies default to
`argparse.SUPPRESS`, because argparse copies a sub-parser's every attribute over the top
parser's, defaults included, and `--json` given first would be reset to False.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

from clmodes import __version__, settings

Verb = Callable[[argparse.Namespace], int]


@dataclasses.dataclass(frozen=True)
class LazyVerb:
    """`clmodes.cli.<module>.<function>`, imported when the verb runs. Why: importing every
    verb's module to parse one command line loaded bundles (signing, validation), the
    remote and the fleet for `clmodes run`, ~50 ms of a warmed `clmodes run`'s start,
    which is what a user of an existing pyopencl program compares with plain pyopencl.
    (tests/unit/test_cli_parser.py resolves every verb, so a misspelled name fails there.)"""

    module: str
    function: str

    def resolve(self) -> Verb:
        found: Verb = getattr(importlib.import_module(f"clmodes.cli.{self.module}"), self.function)
        return found

    def __call__(self, args: argparse.Namespace) -> int:
        return self.resolve()(args)


verb = LazyVerb
# argparse's `_SubParsersAction` is private; only its `add_parser` is used here.
SubParsers = Any


def environment_help() -> str:
    """The environment section of `clmodes --help`, made from `clmodes.settings.KNOBS`."""
    return settings.help_text()


def add_common(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """`--json`, `-v`, `-q`: on the top parser with defaults, on a verb without (above)."""
    default = (lambda value: value) if top else (lambda value: argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", default=default(False),
                        help="machine-readable output")
    parser.add_argument("-v", "--verbose", action="count", default=default(0),
                        help="log more: -v info, -vv debug (the clmodes logger)")
    parser.add_argument("-q", "--quiet", action="count", default=default(0),
                        help="log less: -q errors only; no progress line")


def add_verb(parent: SubParsers, name: str, run: Verb, help: str,
             device: bool = False) -> argparse.ArgumentParser:
    """A sub-parser for `run`, with `--json`, `-v`/`-q` and, if asked, `--device`."""
    sub = parent.add_parser(name, help=help, description=help)
    add_common(sub)
    if device:
        sub.add_argument("--device", default=None,
                         help="device index or substring of 'platform / device'")
    sub.set_defaults(run=run)
    return sub


def build_parser() -> argparse.ArgumentParser:
    """The `clmodes` parser; `parse_args(...).run(args)` runs the chosen verb."""
    parser = argparse.ArgumentParser(
        prog="clmodes", description="OpenCL execution modes", epilog=environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=__version__)
    add_common(parser, top=True)
    verbs = parser.add_subparsers(dest="verb", required=True)
    add_verb(verbs, "devices", verb("devices", "run_devices"), "list OpenCL devices and their fingerprints")
    warm = add_verb(verbs, "warm", verb("warm", "run_warm"), "compile, tune and persist a workload's kernels",
                    device=True)
    warm.add_argument("workload", help="MODULE:FUNCTION, a zero-argument callable")
    warm.add_argument("--allow-memory", action="store_true",
                      help="run even if the store fell back to memory (nothing is kept)")
    warm.add_argument("--sign", metavar="KEY", default=None,
                      help="publish what was warmed to $CLMODES_REMOTE, signed with this "
                           "private key (default $CLMODES_SIGNING_KEY)")
    warm.add_argument("--execute", action="store_true",
                      help="run the workload once for real (its checks hold) and persist "
                           "what it built and tuned, instead of the two discarding passes")
    warm.add_argument("--target", action="append", default=[], metavar="intel-gpu:FAMILY[,FAMILY]",
                      help="also build every batch offline with Intel's ocloc for these "
                           "Intel GPU families (tgllp, adl-p, dg1, acm-g10, pvc, ...): "
                           "binaries for GPUs this machine lacks; repeatable")
    _add_remote_trust(warm)
    checked = add_verb(verbs, "check", verb("check", "run_check"),
                       "run a workload in EXECUTE; exit 1 if anything compiled or tuned", device=True)
    checked.add_argument("workload", help="MODULE:FUNCTION, a zero-argument callable")
    _add_remote_trust(checked)
    ran = add_verb(verbs, "run", verb("run", "run_program"),
                   "run a pyopencl program unchanged, its programs from the store or built "
                   "and persisted")
    ran.add_argument("-m", dest="module", action="store_true",
                     help="TARGET is a module (python -m TARGET)")
    ran.add_argument("--strict", action="store_true",
                     help="exit 1 (one line per kernel) if anything was built from source")
    ran.add_argument("--report", metavar="FILE", default=None,
                     help="write the run's statistics as JSON to FILE")
    ran.add_argument("target", metavar="TARGET", help="a script, or a module with -m")
    ran.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    _add_cache(verbs)
    _add_bundle(verbs)
    _add_tune(verbs)
    _add_fleet(verbs)
    add_verb(verbs, "demo", verb("demo", "run_demo"), "a COMPILE_ONLY pass, one batch build, statistics",
             device=True)
    probe = add_verb(verbs, "probe", verb("probe", "run_probe"),
                     "the device's peak bandwidth and compute (measured once, cached)",
                     device=True)
    probe.add_argument("--refresh", action="store_true",
                       help="measure again, replace the cached result")
    return parser


def _add_cache(verbs: SubParsers) -> None:
    actions = verbs.add_parser("cache", help="the store").add_subparsers(
        dest="action", required=True)
    add_verb(actions, "info", verb("cache", "run_cache_info"),
             "location, entries per device and kind, bytes")
    add_verb(actions, "clear", verb("cache", "run_cache_clear"),
             "delete entries (of one device model with --device)", device=True)
    pruned = add_verb(actions, "prune", verb("cache", "run_cache_prune"),
                      "evict least recently used entries until the store is under SIZE")
    pruned.add_argument("--max-size", required=True, metavar="SIZE",
                        help="the cap on the entries' bytes: 500MB, 2GiB, 800k, or bytes "
                             "(binary units)")


def _add_bundle(verbs: SubParsers) -> None:
    actions = verbs.add_parser("bundle", help="cache bundles to ship").add_subparsers(
        dest="action", required=True)
    export = add_verb(actions, "export", verb("bundle", "run_export"),
                      "write the store (or one device's entries) to FILE", device=True)
    export.add_argument("file", metavar="FILE", help="the bundle file to write")
    export.add_argument("--since", metavar="WHEN", default=None,
                        help="only entries used or created since WHEN: a duration (7d, 12h) "
                             "or an ISO date or time (local unless it has an offset)")
    _add_sign(export)
    imported = add_verb(actions, "import", verb("bundle", "run_import"), "fill the local store from FILE")
    imported.add_argument("file", metavar="FILE", help="a bundle file (clmodes bundle export)")
    _add_trust(imported)
    imported.add_argument("--allow-unsigned", action="store_true",
                          help="import program binaries no trusted key signed (they are code)")
    imported.add_argument("--allow-memory", action="store_true",
                          help="import even if the store fell back to memory or is read-only "
                               "(nothing is kept)")
    inspected = add_verb(actions, "inspect", verb("bundle", "run_inspect"),
                         "what FILE holds, who signed it, how it matches here")
    inspected.add_argument("file", metavar="FILE", help="a bundle file to read (nothing is written)")
    _add_trust(inspected)
    merged = add_verb(actions, "merge", verb("bundle", "run_merge"), "combine bundles into OUT")
    merged.add_argument("-o", "--output", dest="out", required=True, metavar="OUT",
                        help="the merged bundle to write (never one of the inputs)")
    merged.add_argument("inputs", nargs="+", metavar="IN", help="bundles to merge")
    merged.add_argument("--force", action="store_true", help="replace OUT if it exists")
    _add_sign(merged)
    keygen = add_verb(actions, "keygen", verb("bundle", "run_keygen"),
                      "write a signing key KEY (private, 0600) and KEY.pub")
    keygen.add_argument("key", metavar="KEY", help="the private key file to create")
    signed = add_verb(actions, "sign", verb("bundle", "run_sign"), "sign FILE in place with --key KEY")
    signed.add_argument("file", metavar="FILE", help="the bundle to sign in place")
    signed.add_argument("--key", required=True, metavar="KEY", help="the private key")


def _add_sign(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--sign", metavar="KEY", default=None,
                     help="sign the bundle with this private key (`bundle keygen`)")


def _add_remote_trust(sub: argparse.ArgumentParser) -> None:
    """What a verb reading through $CLMODES_REMOTE trusts (the bundle import policy)."""
    _add_trust(sub)
    sub.add_argument("--allow-unsigned", action="store_true",
                     help="use $CLMODES_REMOTE's tune results from untrusted signers (a "
                          "warning); its binaries always need a trusted signer")


def _add_trust(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--trust", metavar="KEY.pub", action="append", default=[],
                     help="trust this public key (repeatable), on top of "
                          "$CLMODES_TRUSTED_KEYS and the config dir's trusted-keys/")


def _add_tune(verbs: SubParsers) -> None:
    actions = verbs.add_parser("tune", help="what was tuned: winners and candidates' timings"
                               ).add_subparsers(dest="action", required=True)
    listed = add_verb(actions, "list", verb("tune", "run_list"),
                      "one row per tuned key: winner, runner-up, configs, origin", device=True)
    listed.add_argument("--tunable", metavar="NAME", help="only this tunable's keys")
    show = add_verb(actions, "show", verb("tune", "run_show"),
                    "every candidate of a key: medians, spread, samples, dropped ones",
                    device=True)
    _add_selection(show)
    plot = add_verb(actions, "plot", verb("tune", "run_plot"),
                    "draw a key's candidates (PNG or SVG; needs the 'plot' extra)", device=True)
    _add_selection(plot)
    plot.add_argument("-o", "--output", dest="out", required=True, metavar="FILE",
                      help="the image to write: FILE.png or FILE.svg")
    forget = add_verb(actions, "forget", verb("tune", "run_forget"),
                      "drop tune entries so that they are tuned again", device=True)
    _add_selection(forget)


def _add_selection(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("tunable", metavar="TUNABLE", help="a tunable's name, as `tune list` shows")
    sub.add_argument("key", metavar="KEY", nargs="?", default=None,
                     help="one of its keys (the JSON `tune list` shows, or a part only it "
                          "contains); default: every key")


def _add_fleet(verbs: SubParsers) -> None:
    actions = verbs.add_parser(
        "fleet", help="warm on every device of a Ray cluster (pip install 'clmodes[fleet]')",
    ).add_subparsers(dest="action", required=True)
    listed = add_verb(actions, "devices", verb("fleet", "run_fleet_devices"),
                      "every node's OpenCL devices, grouped by exact fingerprint")
    listed.add_argument("--address", default=None,
                        help="the Ray cluster (host:port); default $RAY_ADDRESS or this machine's")
    warm = add_verb(actions, "warm", verb("fleet", "run_fleet_warm"),
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
    warm.add_argument("--spread", action="store_true",
                      help="share each tune over every node with the same device model")
    warm.add_argument("--spread-timeout", type=float, default=None, metavar="SECONDS",
                      help="with --spread: a node's share not posted by then is measured "
                           "by another (default 120)")
    warm.add_argument("--sign", metavar="KEY", default=None,
                      help="sign OUT with this private key and, with $CLMODES_REMOTE, publish "
                           "its entries there (default for publishing: $CLMODES_SIGNING_KEY)")
    warm.add_argument("--working-dir", default=None, metavar="DIR",
                      help="ship DIR to the nodes as Ray's runtime_env working_dir")
