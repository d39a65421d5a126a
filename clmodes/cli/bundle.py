"""`clmodes bundle export|import|inspect|merge`: the command around `clmodes.bundle`."""

from __future__ import annotations

import argparse

from clmodes import bundle as bundles
from clmodes.cli.errors import refuse_read_only
from clmodes.runtime import default_store
from clmodes.cli.render import (
    bundle_export_text,
    bundle_import_text,
    bundle_inspect_text,
    bundle_merge_text,
    emit,
)


def run_export(args: argparse.Namespace) -> int:
    """Write the store (or one device's entries, with `--device`) to a bundle file."""
    manifest = bundles.export(args.file, args.device)
    emit(args.json, {"file": args.file, "manifest": manifest}, bundle_export_text)
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Fill the local store from a bundle; what matched here and what was added."""
    refuse_read_only(default_store(), "nothing imported")
    emit(args.json, bundles.install(args.file), bundle_import_text)
    return 0


def run_inspect(args: argparse.Namespace) -> int:
    """What a bundle holds and how its devices match this machine's; changes nothing."""
    emit(args.json, bundles.inspect(args.file), bundle_inspect_text)
    return 0


def run_merge(args: argparse.Namespace) -> int:
    """Combine bundles into one file."""
    manifest = bundles.merge(args.out, args.inputs, force=args.force)
    inputs = len(args.inputs)
    emit(args.json, {"file": args.out, "manifest": manifest},
         lambda report: bundle_merge_text(report, inputs))
    return 0
