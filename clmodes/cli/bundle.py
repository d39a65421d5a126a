"""`clmodes bundle export|import|inspect|merge|keygen|sign`: the command around
`clmodes.bundle`."""

from __future__ import annotations

import argparse
from typing import Any

from clmodes import bundle as bundles
from clmodes.cli.errors import refuse_not_kept
from clmodes.cli.when import parse_when
from clmodes.runtime import default_store
from clmodes.cli.render import (
    bundle_export_text,
    bundle_import_text,
    bundle_inspect_text,
    bundle_merge_text,
    emit,
)


def run_export(args: argparse.Namespace) -> int:
    """Write the store (or one device's entries, with `--device`; those used since WHEN,
    with `--since`) to a bundle file."""
    since = None if args.since is None else parse_when(args.since)
    manifest = bundles.export(args.file, args.device, sign=args.sign, since=since)
    emit(args.json, {"file": args.file, "manifest": manifest},
         lambda r: bundle_export_text(r) + signed_line(args.sign))
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Fill the local store from a bundle; what matched here and what was added."""
    refuse_not_kept(default_store(), "nothing imported", args.allow_memory)
    report = bundles.install(args.file, trusted_keys=args.trust, allow_unsigned=args.allow_unsigned)
    # Its warnings (unsigned, untrusted) are logged by the library: standard error.
    emit(args.json, report, lambda r: trust_line(r["trust"]) + "\n" + bundle_import_text(r)
         + refused_lines(r["refused"]))
    return 0


def run_inspect(args: argparse.Namespace) -> int:
    """What a bundle holds and how its devices match this machine's; changes nothing."""
    emit(args.json, bundles.inspect(args.file, trusted_keys=args.trust),
         lambda r: bundle_inspect_text(r) + "\n" + trust_line(r["trust"])
         + f"\nimport here: {r['trust']['import']}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    """Combine bundles into one file."""
    manifest = bundles.merge(args.out, args.inputs, force=args.force, sign=args.sign)
    inputs = len(args.inputs)
    emit(args.json, {"file": args.out, "manifest": manifest},
         lambda report: bundle_merge_text(report, inputs) + signed_line(args.sign))
    return 0


def run_keygen(args: argparse.Namespace) -> int:
    """A new signing key pair: KEY (private, 0600) and KEY.pub (to give to users)."""
    public = bundles.keygen(args.key)
    emit(args.json, {"private_key": args.key, "public_key": public.source,
                     "fingerprint": public.fingerprint},
         lambda r: (f"wrote {r['private_key']} (private: keep it secret) and {r['public_key']} "
                    f"(public: ship it with your application)\nfingerprint {public.short}"))
    return 0


def run_sign(args: argparse.Namespace) -> int:
    """Sign a bundle in place (replacing any signature), after verifying it in full."""
    signature = bundles.sign(args.file, args.key)
    emit(args.json, {"file": args.file, "signer": signature.key.fingerprint},
         lambda r: f"signed {r['file']} with key {signature.key.short}")
    return 0


def signed_line(key: str | None) -> str:
    return f"\nsigned with {key}" if key else "\nunsigned (sign with --sign KEY)"


def trust_line(trust: dict[str, Any]) -> str:
    if not trust["signed"]:
        return "signature: none (unsigned)"
    verdict = f"trusted ({trust['trusted_by']})" if trust["trusted"] else "not trusted on this machine"
    return f"signature: valid, by key {trust['signer_short']}, {verdict}"


def refused_lines(refused: list[dict[str, Any]]) -> str:
    return "".join(f"\nrefused program binary {r['batch'][:12]} for {r['exact']}: {r['reason']}"
                   for r in refused)
