"""Errors clmodes raises. Each names the thing at fault: kernel, device, file, build log."""

from __future__ import annotations


class ClmodesError(Exception):
    """Base of every error clmodes raises on purpose."""


class NoDeviceError(ClmodesError):
    """No OpenCL platform, or no device matching the selection."""


class DeviceUnusableError(NoDeviceError):
    """A device named explicitly whose compiler cannot build a trivial kernel, or no usable
    device at all; the message gives the reason (the build log's first line) and the remedy."""


class KernelBuildError(ClmodesError):
    """A kernel failed to compile. Raised when that kernel is obtained, not before."""

    def __init__(self, kernel_name: str, device: str, build_log: str) -> None:
        self.kernel_name = kernel_name
        self.device = device
        self.build_log = build_log
        # The first line carries the compiler's first error: a caller that shows one line
        # (a CLI error, a tune record's summary) must never end before the reason.
        super().__init__(
            f"kernel {kernel_name!r} failed to build on {device}: {self.reason}\n"
            f"{build_log.strip()}"
        )

    @property
    def reason(self) -> str:
        return first_error_line(self.build_log)


def first_error_line(build_log: str) -> str:
    """A build log's first line that says `error`, else its first line, at most 300
    characters: what a one-line message says a build failed of."""
    lines = [line.strip() for line in build_log.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or ["the compiler wrote no log"])[0][:300]


class KernelLaunchError(ClmodesError, TypeError):
    """A launch whose arguments do not fit its kernel (count or types)."""


class TuneError(ClmodesError):
    """No candidate of a tunable could be measured for a key."""


class StoreWriteError(ClmodesError):
    """The store could not keep what a command or a warm was about to say it kept (a full
    disk, a file another program locked or damaged for good): nothing of that block of
    writes is in the store. Raised where the claim is made (a warm's one commit, a
    bundle's import, a prune, a clear), so that no caller reports success (the CLI:
    one line, exit 4)."""


class StoreNotPersistentError(ClmodesError):
    """A warm that could keep nothing: the store fell back to memory."""


class NothingWarmedError(ClmodesError):
    """A warm whose workload launched nothing clmodes manages: nothing was gathered or
    persisted (the message names what ran outside clmodes instead, if anything did)."""
