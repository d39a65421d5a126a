"""The compiler's output of a build clmodes issues goes to the `clmodes` logger.

Two channels. pyopencl turns any non-empty build log into a `CompilerWarning`, printed by
Python's warnings machinery: a warmed process loading binaries printed it once per load,
and a library must not print. So clmodes' own builds run under a scoped
`warnings.catch_warnings` that hands their `CompilerWarning`s to the logger (DEBUG, with
what was built), and shows any other warning as it would have been shown. No global
filter: a user's own pyopencl builds warn as they always did.

And the compiler inside the runtime (clang in PoCL and Oclgrind) writes its summary,
"4 warnings generated." / "1 error generated.", from C straight to file descriptor 2,
past Python: it landed beside clmodes' one-line messages (after a Ctrl-C it read like a
build failure). So while any clmodes build runs, descriptor 2 points into a pipe (one
for the whole process: builds run on several threads and a descriptor is the
process's); a relay thread passes every line on to the real descriptor at once, except
the compiler's summary lines, which go to the logger at DEBUG when the last build ends.
Another thread's own writes to descriptor 2 meanwhile are kept, each line whole (a line
without its newline waits for it, or for the end of the builds; the relay writes a line
at a time, which a pipe keeps whole up to 4 KiB). Their order is kept while the builds
run; a line written into the pipe just before the last build ends can come out after
one written straight to the real descriptor just after it, as two threads' lines
may anyway (a block of lines written at once was cut by such a line: CI saw
"user line 257" split in two). Intel's compiler writes
nothing there. Where descriptor 2 was pointed elsewhere during the builds (the progress
line's `shared_terminal` closing), it is left as that left it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import re
import sys
import threading
import warnings
from collections.abc import Iterator

import pyopencl as cl

log = logging.getLogger("clmodes")

# clang's summary of a compile's diagnostics (the diagnostics are in the build log).
CHATTER = re.compile(
    rb"^\s*\d+ (?:warnings?|errors?)(?: and \d+ (?:warnings?|errors?))? generated\.\s*$")
_DRAIN_S = 2.0  # the longest a build's end waits for the relay (a child may hold the pipe)


@contextlib.contextmanager
def logged(what: str) -> Iterator[None]:
    """Run a build; its `CompilerWarning`s and the compiler's lines on descriptor 2 are
    logged (naming `what`), not printed."""
    with stderr_logged(what), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", cl.CompilerWarning)
        try:
            yield
        finally:
            shown = list(caught)
    for warning in shown:
        if issubclass(warning.category, cl.CompilerWarning):
            log.debug("compiler output of %s: %s", what, warning.message)
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno, source=warning.source)


@dataclasses.dataclass(eq=False)
class _Relay:
    """Descriptor 2 pointed into a pipe, and the thread that empties it."""

    saved: int  # the real descriptor 2, which the relay writes to and closes
    pipe: os.stat_result  # what descriptor 2 is while the relay owns it
    whats: list[str] = dataclasses.field(default_factory=list)
    thread: threading.Thread | None = None

    @classmethod
    def start(cls) -> "_Relay | None":
        _flush_stderr()
        try:
            saved = os.dup(2)
        except OSError:  # no descriptor 2 (closed), or none left: leave it alone
            return None
        try:
            read, write = os.pipe()
        except OSError:
            os.close(saved)
            return None
        os.dup2(write, 2)
        relay = cls(saved, os.fstat(write))
        os.close(write)
        relay.thread = threading.Thread(target=relay._pump, args=(read,),
                                        name="clmodes-compiler-output", daemon=True)
        relay.thread.start()
        return relay

    def restore(self) -> None:
        """Give descriptor 2 back, unless someone pointed it elsewhere meanwhile."""
        _flush_stderr()
        with contextlib.suppress(OSError):
            if os.path.samestat(os.fstat(2), self.pipe):
                os.dup2(self.saved, 2)

    def _pump(self, read: int) -> None:
        pending, chatter = b"", []
        try:
            while chunk := os.read(read, 65536):
                *lines, pending = (pending + chunk).split(b"\n")
                passed = [line for line in lines if not CHATTER.match(line)]
                chatter += [line for line in lines if CHATTER.match(line)]
                for line in passed:  # one write a line: whole where another thread writes too
                    self._write(line + b"\n")
            if pending and CHATTER.match(pending):
                chatter.append(pending)
            elif pending:
                self._write(pending)
        finally:
            os.close(read)
            os.close(self.saved)
        for line in chatter:  # descriptor 2 is given back: a log handler's write is not relayed
            log.debug("compiler output of %s (written to stderr): %s",
                      ", ".join(self.whats), line.decode(errors="replace").strip())

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        with contextlib.suppress(OSError):
            while view:
                view = view[os.write(self.saved, view):]


_lock = threading.Lock()
_relay: _Relay | None = None
_users = 0
_WHATS = 8  # builds named in one log line at most


@contextlib.contextmanager
def stderr_logged(what: str) -> Iterator[None]:
    """While the block runs, the compiler's summary lines on descriptor 2 go to the log
    (the module doc); any thread may enter, the first in points the descriptor, the last
    out gives it back."""
    global _relay, _users
    with _lock:
        if _users == 0:
            _relay = _Relay.start()
        _users += 1
        if _relay is not None and len(_relay.whats) < _WHATS:
            _relay.whats.append(what)
    try:
        yield
    finally:
        ending = None
        with _lock:
            _users -= 1
            if _users == 0 and _relay is not None:
                ending, _relay = _relay, None
                ending.restore()  # under the lock: the next build points the real one
        if ending is not None and ending.thread is not None:
            ending.thread.join(timeout=_DRAIN_S)


def _flush_stderr() -> None:
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.flush()
