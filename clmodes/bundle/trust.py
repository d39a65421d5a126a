"""Who this machine trusts to sign bundles, and the policy an import applies.

Trusted public keys come from three places, all of them added together: keys passed
explicitly (`--trust KEY.pub`, `trusted_keys=`), the files named by
`$CLMODES_TRUSTED_KEYS` (separated by `os.pathsep`), and every `*.pub` file in the
`trusted-keys/` folder of the user config dir (platformdirs' for "clmodes", or
`$CLMODES_CONFIG_DIR`). A key file that is named or found there and does not parse is an
error, not silently skipped: a typo in a trust list must not read as "trust nobody"
only at the moment a bundle is refused.

The policy (`enforce`): a bad signature never gets here (it is refused when the file is
read). A bundle carrying program binaries -- code, which the OpenCL driver loads into
the application's process -- is imported only when signed by a trusted key, or with
`allow_unsigned` (then a warning). A bundle of tune results only may be imported
unsigned or by an unknown signer, with a warning: a tune result picks one of the
application's own candidates, it cannot add code.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import platformdirs

from clmodes import settings
from clmodes.bundle.errors import BundleError
from clmodes.bundle.signing import PublicKey, Signature, load_public_key

log = logging.getLogger("clmodes")

KEYS_ENV = settings.TRUSTED_KEYS.name
CONFIG_ENV = settings.CONFIG_DIR.name
KEYS_FOLDER = "trusted-keys"

TrustedKey = str | os.PathLike[str] | PublicKey


def config_dir() -> Path:
    """`$CLMODES_CONFIG_DIR`, else the user config dir (platformdirs) for clmodes."""
    return settings.CONFIG_DIR.get() or Path(platformdirs.user_config_dir("clmodes"))


def trusted_keys_dir() -> Path:
    return config_dir() / KEYS_FOLDER


def trusted_keys(extra: Iterable[TrustedKey] = ()) -> dict[str, PublicKey]:
    """Fingerprint -> key, for every key this machine trusts (with `extra` added)."""
    found: list[PublicKey] = []
    for key in extra:
        found.append(key if isinstance(key, PublicKey) else load_public_key(key))
    for name in settings.TRUSTED_KEYS.get():
        found.append(load_public_key(name))
    folder = trusted_keys_dir()
    if folder.is_dir():
        found.extend(load_public_key(p) for p in sorted(folder.glob("*.pub")))
    return {key.fingerprint: key for key in reversed(found)}  # the first source named wins


@dataclasses.dataclass(frozen=True)
class Trust:
    """Who signed a bundle and whether this machine trusts them."""

    signer: PublicKey | None
    trusted_as: PublicKey | None  # the trusted key it matched (its file says which)

    @property
    def signed(self) -> bool:
        return self.signer is not None

    @property
    def trusted(self) -> bool:
        return self.trusted_as is not None

    def as_dict(self) -> dict[str, Any]:
        return {"signed": self.signed,
                "signer": self.signer.fingerprint if self.signer else None,
                "signer_short": self.signer.short if self.signer else None,
                "trusted": self.trusted,
                "trusted_by": self.trusted_as.source if self.trusted_as else None}

    def describe(self) -> str:
        if not self.signed:
            return "unsigned"
        assert self.signer is not None
        if self.trusted:
            assert self.trusted_as is not None
            return f"signed by {self.signer.short}, trusted ({self.trusted_as.source})"
        return f"signed by {self.signer.short}, not trusted here"


def assess(signature: Signature | None, trusted: dict[str, PublicKey]) -> Trust:
    signer = signature.key if signature else None
    return Trust(signer, trusted.get(signer.fingerprint) if signer else None)


def verdict(trust: Trust, binaries: int) -> str:
    """What an import would do with this bundle here (for `inspect`)."""
    if trust.trusted:
        return "imports"
    if binaries:
        return "refused unless --allow-unsigned (it carries program binaries)"
    return "imports with a warning (tune results only)"


def enforce(path: Path, trust: Trust, binaries: int, allow_unsigned: bool) -> list[str]:
    """Refuse (one line: why, and how to trust the signer) or return the warnings of an
    import that goes ahead."""
    if trust.trusted:
        return []
    who = (f"signed by {trust.signer.short}, a key this machine does not trust"
           if trust.signer else "unsigned")
    if binaries and not allow_unsigned:
        how = (f"if you trust its publisher, get their public key and pass --trust KEY.pub "
               f"(or put it in {trusted_keys_dir()})")
        raise BundleError(f"{path}: {who}, and it carries {binaries} program binaries (code "
                          f"your OpenCL driver runs); {how}, or pass --allow-unsigned to "
                          "import it anyway")
    if binaries:
        warning = (f"{path}: {who}; importing its {binaries} program binaries anyway "
                   "(--allow-unsigned): they run as code in every later process")
    else:
        warning = f"{path}: {who}; importing its tune results only (they carry no code)"
    log.warning("%s", warning)
    return [warning]
