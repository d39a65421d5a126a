"""A stored program kept as its source, where the runtime caches its own builds (PoCL).

Why: on PoCL, reading a built program's `BINARIES` generates every kernel's generic
work-group code, several times the build itself (docs/decisions/pocl-capture.md): on John
the Ripper's 10 programs the capture was 38 of a first process's 47 CPU seconds, where 10
plain builds take 9. pyopencl never pays it there (`has_src_build_cache`): PoCL keeps
every program it builds from source in its kernel cache (`POCL_KERNEL_CACHE`, on unless
set to anything not starting with `1`), keyed by the source, the options and the device,
with the work-group code of each launch added as it is generated. So where that cache is
on, a batch's row in the store holds the batch's own text and build options (a
`SourceRecord`) instead of a binary, and a later process builds that text again: PoCL
finds it in its cache, where it took 0.56-0.65 s for John's 10 programs against 0.17 s
to load binaries (docs/decisions/pocl-source-records.md).

The trap: a record is only as fast as PoCL's cache is warm. A user who clears
`~/.cache/pocl`, or runs with the cache off, pays full builds again: correct (the text is
the batch's, byte for byte; the kernel key already covers every header's content) but
slow; each such build's time is logged (debug, `building.build_source`). A bundle never carries a record: export builds it and
ships the binary, since the machine that installs the bundle has no such cache yet
(`programs.binary_of`), and keeps that binary in the record's place, so the next export
builds nothing (`bundle.compiling`).

Persisted data is data: the payload is a magic line and then JSON, checked by the store's
sha256 like any binary; one that fails to parse is dropped like a binary the driver
refuses.
"""

from __future__ import annotations

import dataclasses
import json

from clmodes import settings
from clmodes.device import Device

MAGIC = b"clmodes source record 1\n"
RUNTIME = "PoCL"  # the runtime whose own cache makes a record pay (the normalized vendor)


class MalformedRecord(ValueError):
    """A payload that starts as a record but is not one (damaged or hostile)."""


@dataclasses.dataclass(frozen=True)
class SourceRecord:
    """What `building.build_source` builds again: the batch's text and build options."""

    source: str
    options: tuple[str, ...]
    # Built with `options` alone, as pyopencl built it (a pyopencl program's record,
    # `pyopencl_hooks.held`), not after clmodes' own `BUILD_OPTIONS`: PoCL's cache finds
    # a build only under the very same options. Written only when set, so that a record
    # without it reads as before.
    exact: bool = False

    def encode(self) -> bytes:
        fields: dict[str, object] = {"source": self.source, "options": list(self.options)}
        if self.exact:
            fields["exact"] = True
        return MAGIC + json.dumps(fields).encode()

    @classmethod
    def decode(cls, payload: bytes) -> SourceRecord | None:
        """The record a stored payload holds; None for a binary; `MalformedRecord` if it
        starts as a record and is not one."""
        if not payload.startswith(MAGIC):
            return None
        try:
            fields = json.loads(payload[len(MAGIC):].decode())
        except (UnicodeDecodeError, ValueError) as error:
            raise MalformedRecord(f"not JSON text ({error})") from None
        if not isinstance(fields, dict):
            raise MalformedRecord("not a JSON object")
        source, options = fields.get("source"), fields.get("options")
        if not isinstance(source, str) or not source:
            raise MalformedRecord("no source text")
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise MalformedRecord("its options are not a list of text")
        exact = fields.get("exact", False)
        if not isinstance(exact, bool):
            raise MalformedRecord("its 'exact' is not true or false")
        return cls(source, tuple(options), exact)


def kept_as_source(device: Device) -> bool:
    """Whether a batch built on `device` is stored as its record rather than its binary:
    on PoCL while its kernel cache is on (read now: a test or a user turning it off sees
    binaries persisted from then on)."""
    return device.fingerprint.vendor == RUNTIME and settings.POCL_KERNEL_CACHE.get()
