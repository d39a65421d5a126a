"""The three mode enums of the contract and the one rule that combines them.

The verdict for a launch (`LaunchMode`) is resolved on the thread that issues the
launch, at the moment it is issued, and handed to the device server as an argument.
The server never derives it: by the time a server looks at a launch the process mode
may already have changed on another thread, and the verdict must reflect what was in
force when the caller asked.
"""

from __future__ import annotations

import enum


class ProcessMode(enum.Enum):
    """What the whole process does with its work (every device, every thread)."""

    EXECUTE = "execute"
    COMPILE_ONLY = "compile_only"
    COMPILE_AND_AUTOTUNE = "compile_and_autotune"


class StreamMode(enum.Enum):
    """Whether one stream's launches run. A stream knows nothing else."""

    EXECUTE = "execute"
    DISCARD = "discard"


class LaunchMode(enum.Enum):
    """The verdict for one launch."""

    EXECUTE = "execute"  # obtain the kernel (compile if needed) and run it
    COMPILE = "compile"  # obtain the kernel, drop the launch
    QUEUE = "queue"  # put the kernel in its device's compile queue, drop the launch


def default_stream_mode(process: ProcessMode) -> StreamMode:
    """A stream with no override of its own executes only when the process executes."""
    return StreamMode.EXECUTE if process is ProcessMode.EXECUTE else StreamMode.DISCARD


def resolve_launch_mode(stream: StreamMode, process: ProcessMode) -> LaunchMode:
    """Combine a stream's mode with the process mode into the verdict for one launch."""
    if stream is StreamMode.EXECUTE:
        return LaunchMode.EXECUTE
    if process is ProcessMode.COMPILE_ONLY:
        return LaunchMode.QUEUE
    return LaunchMode.COMPILE
