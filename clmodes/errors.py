"""Errors clmodes raises. Each names the thing at fault: kernel, device, file, build log."""

from __future__ import annotations


class ClmodesError(Exception):
    """Base of every error clmodes raises on purpose."""


class NoDeviceError(ClmodesError):
    """No OpenCL platform, or no device matching the selection."""


class KernelBuildError(ClmodesError):
    """A kernel failed to compile. Raised when that kernel is obtained, not before."""

    def __init__(self, kernel_name: str, device: str, build_log: str) -> None:
        self.kernel_name = kernel_name
        self.device = device
        self.build_log = build_log
        super().__init__(
            f"kernel {kernel_name!r} failed to build on {device}:\n{build_log.strip()}"
        )


class KernelLaunchError(ClmodesError, TypeError):
    """A launch whose arguments do not fit its kernel (count or types)."""


class TuneError(ClmodesError):
    """No candidate of a tunable could be measured for a key."""


class StoreNotPersistentError(ClmodesError):
    """A warm that could keep nothing: the store fell back to memory."""
