"""Every environment variable clmodes reads, declared once: its name, type, default, parser,
one-line doc and subsystem (`Knob`), in the lowest layer so any module may read it.

Why one table: the variables were read at 31 places in 24 files, one parsed twice, one
name defined twice, and listed by hand three times in lists that disagreed. Here each is
one `Knob`; `clmodes --help`'s environment section (`help_text`) and the contract's table
(`markdown_table`, written into docs/contract.md by `python ci/settings_tables.py`) are
made from `KNOBS`, and tests/unit/test_settings.py checks they agree and that no other
module reads a knob from `os.environ`.

Why read on each call: a knob is read when the code needs it (`CACHE_MAX_SIZE.get()`),
never cached at import, as before: a test's `monkeypatch.setenv`, the CLI's `--device`
(`DEVICE.export`) and a workload changing its own environment all take effect at the
next read. What wants a snapshot takes one (`remote.config.Bounds.from_environment`).

A value that does not parse is a `SettingError` (a `ValueError`) of one line naming the
variable and the value; the caller decides what it costs (the bundle reader refuses, the
warm's cap only warns, the CLI exits 2). Messages keep the wording each had before; a new
knob takes the default, `$NAME='value': why`.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from pathlib import Path
from typing import Generic, TypeVar

from clmodes.sizes import parse_size

T = TypeVar("T", covariant=True)


class Subsystem(str, enum.Enum):
    """Which part of clmodes reads a knob."""

    DEVICES = "devices"
    STORE = "store"
    LOGGING = "logging"
    BUNDLES = "bundles"
    EXECUTION = "execution"
    TUNING = "tuning"
    BATCHING = "batching"
    TRUST = "trust"
    REMOTE = "remote"
    FLEET = "fleet"
    PYOPENCL = "pyopencl"
    OFFLINE = "offline"


class Status(str, enum.Enum):
    """The contract's word for a variable: `fixed` by the spec, or `added` by clmodes."""

    FIXED = "fixed"
    ADDED = "added"


class SettingError(ValueError):
    """A variable set to a value its knob cannot read; one line naming both."""

    def __init__(self, name: str, value: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.value = value


@dataclasses.dataclass(frozen=True)
class Knob(Generic[T]):
    """One environment variable: read with `get()` each time it matters.

    `parse` turns the (stripped, if `strip`) non-empty text into the value or raises
    `ValueError(reason)`; unset or empty is `default`. `error` words the failure from
    `{variable}` ($NAME), `{name}`, `{value}` (the text, 40 characters at most) and
    `{reason}`."""

    name: str
    subsystem: enum.Enum
    default: T
    parse: Callable[[str], T]
    doc: str  # one line: `clmodes --help`
    contract: str = ""  # the contract's fuller meaning; `doc` when empty
    status: Status = Status.ADDED
    error: str = "{variable}={value!r}: {reason}"
    strip: bool = True  # strip the text before reading it (False: read as given)

    def text(self, environ: Mapping[str, str] | None = None) -> str:
        """The variable's text as the knob reads it ("" when unset)."""
        text = (os.environ if environ is None else environ).get(self.name, "")
        return text.strip() if self.strip else text

    def get(self, environ: Mapping[str, str] | None = None) -> T:
        """The value now (of `environ`, default the process's); `SettingError` if bad."""
        return self.read(self.text(environ))

    def read(self, text: str) -> T:
        """The value a text gives (what `get` does after reading the variable)."""
        if self.strip:
            text = text.strip()
        if not text:
            return self.default
        try:
            return self.parse(text)
        except ValueError as error:
            message = self.error.format(variable=f"${self.name}", name=self.name,
                                        value=text[:40], reason=error)
            raise SettingError(self.name, text, message) from None

    def export(self, text: str, environ: MutableMapping[str, str] | None = None) -> None:
        """Set the variable (in `environ`, default the process's), so that what this
        process starts, and this process's next read, see it."""
        (os.environ if environ is None else environ)[self.name] = text


def as_text(text: str) -> str:
    return text


def as_path(text: str) -> Path:
    return Path(text)


def as_size(text: str) -> int:
    return parse_size(text)


def as_words(text: str) -> tuple[str, ...]:
    """Split on whitespace, as pyopencl splits `$PYOPENCL_BUILD_OPTIONS`."""
    return tuple(text.split())


def as_paths(text: str) -> tuple[str, ...]:
    """`os.pathsep`-separated names, empty ones skipped."""
    return tuple(filter(None, text.split(os.pathsep)))


def starts_with_one(text: str) -> bool:
    """A switch read as PoCL reads its own (`POCL_KERNEL_CACHE=10` is on, ` 1` is off)."""
    return text.startswith("1")


def is_one(text: str) -> bool:
    """A switch that is on only when set to `1`."""
    return text == "1"


def is_not_zero(text: str) -> bool:
    """A switch that is off only when set to `0`."""
    return text != "0"


def positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("not a number") from None
    if not value > 0 or value == float("inf"):
        raise ValueError("must be above 0")
    return value


def positive_whole(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError("not a whole number") from None
    if value <= 0:
        raise ValueError("must be above 0")
    return value


def count_or_none(text: str) -> int | None:
    """A whole number above 0, or None: anything else is ignored, as it always was."""
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else None


def choice(options: Iterable[str], expected: str, lower: bool = True) -> Callable[[str], str]:
    """One of `options` (read case-insensitively if `lower`); `expected` words the
    refusal, with `{got!r}` the value as read."""
    allowed = tuple(options)

    def parse(text: str) -> str:
        read = text.lower() if lower else text
        if read not in allowed:
            raise ValueError(expected.format(got=read))
        return read
    return parse


LOG_LEVELS = ("debug", "info", "warning", "error", "critical")  # loudest first
VERIFY_CHOICES = ("off", "first-use")
DEFAULT_BUNDLE_MAX_SIZE = 4 << 30

DEVICE: Knob[str | None] = Knob(
    "CLMODES_DEVICE", Subsystem.DEVICES, None, as_text, strip=False, status=Status.FIXED,
    doc="the device: an index or a substring of 'platform / device' (default: the first)",
    contract="the default device: an index into `devices()`, or a case-insensitive substring "
             "of `\"platform name / device name\"` (*added*: or of the normalized vendor)")
CACHE_DIR: Knob[Path | None] = Knob(
    "CLMODES_CACHE_DIR", Subsystem.STORE, None, as_path, strip=False, status=Status.FIXED,
    doc="the store's folder (default: the user cache dir)",
    contract="where the store lives")
CACHE_MAX_SIZE: Knob[int | None] = Knob(
    "CLMODES_CACHE_MAX_SIZE", Subsystem.STORE, None, as_size, status=Status.FIXED,
    error="{variable}: {reason}",
    doc="after each warm, evict least recently used entries until the store is under this "
        "size (500MB, 2GiB)",
    contract="a SIZE as `cache prune --max-size` takes: after each successful `warm()` the "
             "store is pruned to it, keeping what that warm made (one INFO log line when "
             "something was evicted; one warning instead when SIZE is smaller than the warm's "
             "own entries); a value that is not a size is one warning naming the variable, no "
             "prune, and the warm still succeeds. Not passed to `fleet warm`'s nodes (their "
             "fresh stores are exported whole)")
LOG: Knob[str] = Knob(
    "CLMODES_LOG", Subsystem.LOGGING, "warning",
    choice(LOG_LEVELS, f"must be one of {', '.join(LOG_LEVELS)}; got {{got!r}}"),
    error="{variable} {reason}",
    doc="the clmodes logger's level: debug, info, warning (default), error",
    contract="the `clmodes` logger's level for the command: debug, info, warning (default), "
             "error")
BUNDLE_MAX_SIZE: Knob[int] = Knob(
    "CLMODES_BUNDLE_MAX_SIZE", Subsystem.BUNDLES, DEFAULT_BUNDLE_MAX_SIZE, as_size, strip=False,
    error="{variable}={value!r}: not a size (bytes, or with K, M, G, T)",
    doc="the largest bundle read, in bytes or with K/M/G (default 4G): larger ones are "
        "refused before a byte is read")
STRICT: Knob[bool] = Knob(
    "CLMODES_STRICT", Subsystem.EXECUTION, False, is_one, strip=False,
    doc="1: a process in EXECUTE raises at its first kernel built from source or key tuned, "
        "naming why the store missed",
    contract="`1`: a process in `EXECUTE` raises `StrictMissError` at its first kernel built "
             "from source or key tuned, naming why the store missed")
VERIFY: Knob[str] = Knob(
    "CLMODES_VERIFY", Subsystem.TUNING, "off",
    choice(VERIFY_CHOICES, "must be 'first-use' or 'off', not {got!r}"),
    error="{variable} {reason}",
    doc="first-use: a process in EXECUTE times a tune answer not measured here (graded or "
        "imported) once, as warm does (default: off)",
    contract="`first-use`: a process in `EXECUTE` times a tune answer not measured here once, "
             "as `warm` does (default: off)")
REGISTER_RUNTIMES: Knob[bool] = Knob(
    "CLMODES_REGISTER_RUNTIMES", Subsystem.DEVICES, True, is_not_zero, strip=False,
    doc="0: do not register Intel's CPU runtime from PyPI with the ICD loader (default 1, "
        "when OCL_ICD_VENDORS is unset)",
    contract="`0`: do not register Intel's CPU runtime from PyPI with the ICD loader (default "
             "`1`; nothing is registered when `OCL_ICD_VENDORS` is set)")
MAX_BATCH: Knob[int | None] = Knob(
    "CLMODES_MAX_BATCH", Subsystem.BATCHING, None, count_or_none,
    doc="most kernels in one batch build (default: measured per runtime)",
    contract="most units in one batch build (a value that is not a whole number above 0 is "
             "ignored)")
BATCH_ALL: Knob[bool] = Knob(
    "CLMODES_BATCH_ALL", Subsystem.BATCHING, False, is_one,
    doc="1: batch every unit that can batch, however much preparing it costs (default: a "
        "unit whose preparation costs more than a build builds alone)",
    contract="`1`: prepare and batch every unit that can batch, whatever preparing it costs "
             "(default: a unit whose preparation would cost more than one build's fixed cost "
             "builds alone)")
CONFIG_DIR: Knob[Path | None] = Knob(
    "CLMODES_CONFIG_DIR", Subsystem.TRUST, None, as_path, strip=False,
    doc="the config folder, holding trusted-keys/ (default: the user config dir)",
    contract="the config folder holding `trusted-keys/`")
TRUSTED_KEYS: Knob[tuple[str, ...]] = Knob(
    "CLMODES_TRUSTED_KEYS", Subsystem.TRUST, (), as_paths, strip=False, status=Status.FIXED,
    doc="public key files trusted at bundle import and for $CLMODES_REMOTE's entries, "
        "os.pathsep-separated",
    contract="public key files trusted at import, `os.pathsep`-separated")
REMOTE: Knob[str | None] = Knob(
    "CLMODES_REMOTE", Subsystem.REMOTE, None, as_text, status=Status.FIXED,
    doc="a team's shared cache behind the store: redis://HOST:PORT/DB or rediss://... "
        "(pip install 'clmodes[remote]'; docs/remote.md)",
    contract="a team's remote behind the store: `redis://HOST:PORT/DB` or `rediss://...` "
             "(extra `remote`)")
REMOTE_TIMEOUT_S: Knob[float] = Knob(
    "CLMODES_REMOTE_TIMEOUT_S", Subsystem.REMOTE, 2.0, positive_number,
    doc="the longest one remote operation may take, seconds (default 2; docs/remote.md)")
REMOTE_BUDGET_S: Knob[float] = Knob(
    "CLMODES_REMOTE_BUDGET_S", Subsystem.REMOTE, 2.5, positive_number,
    doc="the remote time a process may spend before the remote is marked down for it, "
        "seconds (default 2.5)")
REMOTE_MAX_ENTRY: Knob[int] = Knob(
    "CLMODES_REMOTE_MAX_ENTRY", Subsystem.REMOTE, 256 << 20, positive_whole,
    doc="the largest remote entry read (default 256MiB; larger ones are refused on their "
        "length, unread)")
SIGNING_KEY: Knob[str | None] = Knob(
    "CLMODES_SIGNING_KEY", Subsystem.REMOTE, None, as_text, status=Status.FIXED,
    doc="the private key warm and fleet warm publish to $CLMODES_REMOTE with (like --sign KEY)",
    contract="the private key `warm` and `fleet warm` publish to the remote with (as "
             "`--sign KEY`)")
OCLOC: Knob[str | None] = Knob(
    "CLMODES_OCLOC", Subsystem.OFFLINE, None, as_text,
    doc="the ocloc warm --target runs (default: the one on PATH; Debian intel-opencl-icd)",
    contract="the `ocloc` that `warm --target` runs (default: the one on `PATH`; Debian "
             "`intel-opencl-icd`)")
FLEET_PARENT: Knob[str | None] = Knob(
    "CLMODES_FLEET_PARENT", Subsystem.FLEET, None, as_text, strip=False,
    doc="set by clmodes fleet on its node processes (internal)")
FLEET_SPREAD: Knob[str | None] = Knob(
    "CLMODES_FLEET_SPREAD", Subsystem.FLEET, None, as_text, strip=False,
    doc="set by clmodes fleet warm --spread: a node's role (internal)")
PYOPENCL_BUILD_OPTIONS: Knob[tuple[str, ...]] = Knob(
    "PYOPENCL_BUILD_OPTIONS", Subsystem.PYOPENCL, (), as_words, strip=False,
    doc="pyopencl's extra build options (batching reads them too)",
    contract="pyopencl's extra build options; batching reads them too (and they are part of "
             "the usability check's key)")

POCL_KERNEL_CACHE: Knob[bool] = Knob(
    "POCL_KERNEL_CACHE", Subsystem.STORE, True, starts_with_one, strip=False,
    doc="PoCL's own kernel cache, read as PoCL reads it (on when unset or 1...): while on, "
        "the store keeps PoCL batches as their source",
    contract="PoCL's own variable, read as PoCL reads it (on when unset or starting with "
             "`1`): while on, the store keeps a PoCL batch as its source and build options, "
             "and PoCL's cache holds its code; off, as PoCL's binary")

KNOBS: tuple[Knob[object], ...] = (  # in the order `clmodes --help` lists them
    DEVICE, CACHE_DIR, CACHE_MAX_SIZE, LOG, BUNDLE_MAX_SIZE, STRICT, VERIFY, REGISTER_RUNTIMES,
    MAX_BATCH, BATCH_ALL, OCLOC, CONFIG_DIR, TRUSTED_KEYS, REMOTE, REMOTE_TIMEOUT_S, REMOTE_BUDGET_S,
    REMOTE_MAX_ENTRY, SIGNING_KEY, FLEET_PARENT, FLEET_SPREAD, PYOPENCL_BUILD_OPTIONS,
    POCL_KERNEL_CACHE,
)


def help_text(knobs: Iterable[Knob[object]] = KNOBS,
              title: str = "environment variables:") -> str:
    """The environment section of a command's `--help`: one line per knob."""
    rows = [(knob.name, knob.doc) for knob in knobs]
    width = max(len(name) for name, _ in rows)
    return title + "\n" + "\n".join(f"  {name:{width}}  {doc}" for name, doc in rows)


def markdown_table(knobs: Iterable[Knob[object]] = KNOBS, status: bool = True) -> str:
    """The table of variables docs/contract.md holds (written by ci/settings_tables.py):
    variable, status (the contract's word; left out with `status=False`), subsystem and
    meaning."""
    head = ["variable", *(["status"] if status else []), "subsystem", "meaning"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("-" * (len(h) + 2) for h in head) + "|"]
    for knob in knobs:
        meaning = (knob.contract or knob.doc).replace("|", "\\|")
        cells = [f"`{knob.name}`", *([knob.status.value] if status else []),
                 knob.subsystem.value, meaning]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
