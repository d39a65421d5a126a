"""An obtained kernel: a `pyopencl.Kernel` ready to enqueue, with its argument types known.

Scalar argument dtypes come from the kernel's own argument info (the batch is built with
`-cl-kernel-arg-info`), so a launch can pass Python ints and floats as pyopencl users
expect, and a wrong argument is reported with the kernel's name and the argument's index,
name and declared type instead of pyopencl's positional `arg#2`.

A `pyopencl.Kernel` holds its arguments as state (set_arg, then enqueue), so two threads
launching one kernel object would race. Each thread gets its own kernel object instead,
created on its first launch: a lock around set-args + enqueue would cost every launch
about a microsecond, a third of pyopencl's own launch cost.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from clmodes import released
from clmodes.released import RELEASED
from clmodes.errors import KernelLaunchError
from clmodes.kernel import RENAMED

_SCALARS = {
    "char": np.int8, "uchar": np.uint8, "unsigned char": np.uint8,
    "short": np.int16, "ushort": np.uint16, "unsigned short": np.uint16,
    "int": np.int32, "uint": np.uint32, "unsigned int": np.uint32,
    "long": np.int64, "ulong": np.uint64, "unsigned long": np.uint64,
    "float": np.float32, "double": np.float64, "half": np.float16,
    "bool": np.int32,
}


def _size(size: object) -> tuple[int, ...]:
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(size)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    name: str
    type_name: str
    pointer: bool
    resolved: bool = True  # False: a typedef clmodes could not resolve (see `_resolve`)

    def as_row(self) -> list[object]:
        return [self.name, self.type_name, self.pointer] + ([] if self.resolved else [False])

    @classmethod
    def from_rows(cls, rows: object) -> list["ArgInfo"] | None:
        """Argument info read back from the store; anything malformed reads as None."""
        if not isinstance(rows, list):
            return None
        try:
            return [cls(str(r[0]), str(r[1]), bool(r[2]), bool(r[3]) if len(r) > 3 else True)
                    for r in rows if isinstance(r, list) and len(r) in (3, 4)]
        except (TypeError, ValueError):
            return None




def _resolve(type_name: str, aliases: Mapping[str, str | None]) -> tuple[str, bool]:
    """The type as the user wrote it, then through the unit's typedefs to a scalar type,
    and whether that worked: batching renames `real_t` to `real_t__clm<unit>`, drivers
    report typedef names, and an alias whose `#if` branches disagree (None) is never
    guessed."""
    type_name = RENAMED.sub("", type_name).strip()
    for _ in range(8):  # typedef chains, without looping forever on a cycle
        if type_name not in aliases:
            return type_name, True
        base = aliases[type_name]
        if base is None:
            return type_name, False
        type_name = base
    return type_name, False


def _arg_infos(
    kernel: cl.Kernel, address_bits: int, aliases: Mapping[str, str | None]
) -> list[ArgInfo] | None:
    try:
        infos = []
        for i in range(kernel.num_args):
            qualifier = kernel.get_arg_info(i, cl.kernel_arg_info.ADDRESS_QUALIFIER)
            type_name, known = _resolve(kernel.get_arg_info(i, cl.kernel_arg_info.TYPE_NAME), aliases)
            pointer = qualifier != cl.kernel_arg_address_qualifier.PRIVATE or "*" in type_name
            if type_name == "size_t":
                type_name = "ulong" if address_bits == 64 else "uint"
            name = RENAMED.sub("", kernel.get_arg_info(i, cl.kernel_arg_info.NAME))
            infos.append(ArgInfo(name, type_name, pointer, resolved=known))
        return infos
    except cl.Error:
        return None  # e.g. a program loaded from a binary without argument info


@dataclasses.dataclass(eq=False)
class Launchable:
    """One obtained kernel on one device."""

    name: str
    device_label: str
    program: cl.Program
    entry: str
    num_args: int
    args: list[ArgInfo] | None
    dtypes: list[object] | None
    unresolved: tuple[int, ...] = ()  # scalar arguments whose typedef is not resolved
    per_thread: dict[int, cl.Kernel] = dataclasses.field(default_factory=dict)
    # Buffers of other contexts crash runtimes that do not check handles (see
    # `_guards_buffers`): there, the pointer arguments' buffers are checked against the
    # ones already seen in this context (int_ptr), a new one once (its context). An
    # address is forgotten when its buffer is released; one freed by garbage collection
    # is not seen (pyopencl frees it in C++), so a buffer of another context made at
    # that very address is trusted: the one case left unchecked.
    context: cl.Context | None = None
    buffer_slots: tuple[int, ...] | None = None  # None: no check (the runtime refuses them)
    known_buffers: set[int] = dataclasses.field(default_factory=set)

    @classmethod
    def create(
        cls, name: str, device: cl.Device, label: str, program: cl.Program, entry: str,
        recorded: list[ArgInfo] | None = None,
        aliases: Mapping[str, str | None] | None = None,
    ) -> "Launchable":
        """Raises `cl.Error` if the program has no kernel `entry`. `recorded`: argument
        info persisted with a binary (already resolved; some drivers' programs loaded from
        binaries lose it), used as it is when no `aliases` are given. `aliases`: the
        unit's typedefs, to resolve the driver's argument info with."""
        first = cl.Kernel(program, entry)
        if recorded is not None and aliases is None:
            infos: list[ArgInfo] | None = recorded
        else:
            infos = _arg_infos(first, int(device.address_bits), aliases or {}) or recorded
        dtypes = None if infos is None else [
            None if a.pointer else _SCALARS.get(a.type_name) for a in infos
        ]
        unresolved = () if infos is None else tuple(
            i for i, a in enumerate(infos) if not a.pointer and not a.resolved
        )
        num_args = int(first.num_args)
        slots = None if not _guards_buffers(device) else tuple(
            i for i in range(num_args) if infos is None or infos[i].pointer)
        launchable = cls(name, label, program, entry, num_args, infos, dtypes,
                         unresolved, context=program.context, buffer_slots=slots)
        launchable._adopt(first)
        if slots is not None:
            released.watch(launchable)
        return launchable

    def forget_buffer(self, int_ptr: int) -> None:
        """A buffer at this address was released: the next one there may be any
        context's, so it is checked again."""
        self.known_buffers.discard(int_ptr)

    def _adopt(self, kernel: cl.Kernel) -> cl.Kernel:
        if self.dtypes is not None:
            kernel.set_scalar_arg_dtypes(self.dtypes)
        self.per_thread[threading.get_ident()] = kernel
        return kernel

    def enqueue(
        self,
        queue: cl.CommandQueue,
        global_size: Sequence[int],
        local_size: Sequence[int] | None,
        args: tuple[object, ...],
    ) -> cl.Event:
        if len(args) != self.num_args:
            raise KernelLaunchError(
                f"kernel {self.name!r} takes {self.num_args} arguments, got {len(args)}"
                + self._signature()
            )
        if type(global_size) is not tuple:
            global_size = _size(global_size)
        if local_size is not None and type(local_size) is not tuple:
            local_size = _size(local_size)
        kernel = self.per_thread.get(threading.get_ident())
        if kernel is None:
            kernel = self._adopt(cl.Kernel(self.program, self.entry))
        # What would crash the process instead of failing: a released buffer (one dict
        # test while none is), a buffer of another context where the runtime follows it
        # (per pointer argument: a class test and a set lookup). Inline: a call costs
        # more than the checks.
        if RELEASED and not RELEASED.keys().isdisjoint(map(id, args)):
            self._refuse_buffers(args)
        slots = self.buffer_slots
        if slots is not None:
            known = self.known_buffers
            for i in slots:
                value = args[i]
                kind = value.__class__
                if kind is _BUFFER:
                    if value.int_ptr in known:
                        continue
                elif kind is _LOCAL:
                    continue
                self._refuse_buffers(args)  # a new buffer, an image, an array, a mistake
                break
        try:
            return kernel(queue, global_size, local_size, *args)
        except (cl.Error, TypeError, ValueError, OverflowError, RuntimeError) as error:
            # Only now, off the hot path: `pyopencl.array.Array`s where buffers belong
            # (an array's released buffer refused first: a sub-buffer of it would crash).
            self._refuse_buffers(args)
            try:
                converted = _with_buffers(args)
            except cl.Error as refused:
                raise KernelLaunchError(
                    f"kernel {self.name!r} on {self.device_label}: an array view at an "
                    f"offset the device cannot address as a sub-buffer "
                    f"({str(refused).split(': ')[-1]}); pass a copy or an aligned view"
                ) from error
            if converted is not None:
                self._refuse_buffers(converted)
                try:
                    return kernel(queue, global_size, local_size, *converted)
                except (cl.Error, TypeError, ValueError, OverflowError, RuntimeError):
                    pass
            raise KernelLaunchError(self._explain(error, args)) from error

    def _refuse_buffers(self, args: tuple[object, ...]) -> None:
        """Raise for a released buffer or one of another context; remember the buffers
        found to be this context's. Never asks a released buffer anything: that alone
        crashes some runtimes."""
        problem = self._buffer_problem(args)
        if problem:
            raise KernelLaunchError(problem)

    def _buffer_problem(self, args: tuple[object, ...]) -> str | None:
        for i, passed in enumerate(args):
            value = passed.base_data if isinstance(passed, cla.Array) else passed
            if not isinstance(value, cl.MemoryObjectHolder):
                continue
            if released.is_released(value):
                return self._argument_problem(
                    i, passed, "was released (its .release() was called) before this launch")
            if value.int_ptr in self.known_buffers:
                continue
            other = self._other_context(value)
            if other:
                return self._argument_problem(
                    i, passed, f"belongs to another context ({other}), not this stream's; "
                    "create it in the stream's context (client.context), or adopt its "
                    "context: clmodes.client(context=ctx).stream(queue=q)")
            if len(self.known_buffers) >= _KNOWN_BUFFERS:
                self.known_buffers.clear()
            self.known_buffers.add(value.int_ptr)
        return None

    def _other_context(self, value: cl.MemoryObjectHolder) -> str | None:
        """Where a memory object of another context lives, in words; None if it is this
        kernel's. Its context is asked of the runtime that made it (the ICD loader
        dispatches on the object), which is safe for a live object of any platform."""
        try:
            context = value.context
        except cl.Error as error:  # Intel: a context whose last Python handle is gone
            return f"one that cannot be inspected: {str(error).splitlines()[0]}"
        if self.context is None or context == self.context:
            return None
        return "on " + ", ".join(d.name.strip() for d in context.devices)

    def _argument_problem(self, index: int, value: object, problem: str) -> str:
        head = f"kernel {self.name!r} on {self.device_label}: argument {index}"
        if self.args is not None and index < len(self.args):
            info = self.args[index]
            head += f" ({info.type_name} {info.name})"
        return f"{head}: the {type(value).__name__} passed {problem}"

    def _unresolved_problem(self, args: tuple[object, ...]) -> str | None:
        """A Python number for a type nobody could resolve: its dtype slot is None, so
        pyopencl refuses it (converting it by guess wrote the bits of 7.0f where an int 7
        was meant); say why, on the error path only."""
        assert self.args is not None
        for i in self.unresolved:
            if isinstance(args[i], (bool, int, float)):
                info = self.args[i]
                return (f"argument {i} ({info.type_name} {info.name}) has a typedef whose #if "
                        f"branches disagree, so a Python {type(args[i]).__name__} cannot be "
                        f"converted; pass a numpy scalar of its type (e.g. numpy.int32(...))")
        return None

    def _signature(self) -> str:
        if self.args is None:
            return ""
        return " (" + ", ".join(f"{a.type_name} {a.name}" for a in self.args) + ")"

    def _explain(self, error: Exception, args: tuple[object, ...]) -> str:
        head = f"kernel {self.name!r} on {self.device_label}: "
        buffers = self._buffer_problem(args)  # where the runtime refused them itself
        if buffers:
            return buffers
        unresolved = self._unresolved_problem(args) if self.unresolved else None
        if unresolved:
            return head + unresolved
        if self.args is not None:
            for i, (info, value) in enumerate(zip(self.args, args)):
                is_memory = isinstance(value, (cl.MemoryObjectHolder, cl.LocalMemory))
                if info.pointer != is_memory and not isinstance(value, cla.Array):
                    wanted = "a buffer (pass array.data)" if info.pointer else "a scalar"
                    return (
                        f"{head}argument {i} ({info.type_name} {info.name}) needs {wanted}, "
                        f"got {type(value).__name__}"
                    )
                problem = None if info.pointer else _scalar_problem(self.dtypes, i, value)
                if problem:
                    return f"{head}argument {i} ({info.type_name} {info.name}) {problem}"
        return f"{head}{error}"


_BUFFER, _LOCAL = cl.Buffer, cl.LocalMemory
_KNOWN_BUFFERS = 4096  # buffers remembered per kernel; past that, seen ones are checked again


def _guards_buffers(device: cl.Device) -> bool:
    """Does a launch on `device` need its buffers checked before the runtime sees them?
    Intel's CPU runtime validates handles (INVALID_MEM_OBJECT, which the error path
    explains); PoCL and Oclgrind follow a foreign handle and crash, and a runtime not
    tried is assumed to."""
    return "Intel(R) OpenCL" not in device.platform.name


def _with_buffers(args: tuple[object, ...]) -> tuple[object, ...] | None:
    """The arguments with each `pyopencl.array.Array` as its buffer (its offset kept, as a
    sub-buffer); None when there is none to convert."""
    if not any(isinstance(a, cla.Array) for a in args):
        return None
    return tuple(_buffer_of(a) if isinstance(a, cla.Array) else a for a in args)


def _buffer_of(array: cla.Array) -> cl.MemoryObjectHolder:
    if not array.offset:
        return array.base_data
    return array.base_data.get_sub_region(array.offset, array.nbytes)


def _scalar_problem(dtypes: list[object] | None, index: int, value: object) -> str | None:
    """What is wrong with a value for a scalar argument of a known type, in words."""
    dtype = None if dtypes is None else dtypes[index]
    if dtype is None:
        return None
    kind = np.dtype(dtype)
    if isinstance(value, (np.generic, np.ndarray)):
        return None
    if not isinstance(value, (bool, int, float)):
        return f"needs a number, got {type(value).__name__} {value!r:.40}"
    if kind.kind in "iu":
        if isinstance(value, float):
            return f"needs an integer, got float {value!r}"
        info = np.iinfo(kind)
        if not info.min <= value <= info.max:
            return f"cannot hold {value} ({kind.name}: {info.min}..{info.max})"
    return None

