"""An obtained kernel: a `pyopencl.Kernel` ready to enqueue, with its argument types known.

Scalar argument dtypes come from the kernel's own argument info (the batch is built with
`-cl-kernel-arg-info`), so a launch can pass Python ints and floats as pyopencl users
expect, and a wrong argument is reported with the kernel's name and the argument's index,
name and declared type instead of pyopencl's positional `arg#2`. Before the runtime sees
a launch, its sizes are checked against the device (`launch_sizes`: some runtimes abort on
an impossible one) and an Array's dtype against its pointer's declared type
(`pointer_types`); both checks cost a set lookup or an identity test once passed. A
buffer too small for what every work-item of the launch indexes (`global_indexing`: the
kernel's source indexes that pointer with `get_global_id(0)` on every path) is refused
too: the runtime would write past it and kill the process.

A `pyopencl.Kernel` holds its arguments as state (set_arg, then enqueue), so two threads
launching one kernel object would race. Each thread gets its own kernel object instead,
created on its first launch: a lock around set-args + enqueue would cost every launch
about a microsecond, a third of pyopencl's own launch cost.
"""

from __future__ import annotations

import dataclasses
from typing import Any
import threading
from collections.abc import Mapping, Sequence

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from clmodes import released
from clmodes.arginfo import ArgInfo  # re-exported: its home was here
from clmodes.errors import KernelLaunchError
from clmodes.kernel import RENAMED
from clmodes.launch_args import (
    SCALAR_DTYPES, argument_problem, guards_buffers, other_context, with_buffers)
from clmodes.launch_sizes import SizeLimits
from clmodes.pointer_types import PointerType, dtype_problem, element_bytes, pointer_type
from clmodes.released import RELEASED

def _size(size: object) -> tuple[int, ...]:
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(size)  # type: ignore[arg-type]


def _resolve(type_name: str, aliases: Mapping[str, str | None]) -> tuple[str, bool]:
    """The type as the user wrote it, then through the unit's typedefs to a scalar type,
    and whether that worked: batching renames `real_t` to `real_t__clm<unit>`, drivers
    report typedef names, and an alias whose `#if` branches disagree (None) is never
    guessed."""
    type_name = RENAMED.sub("", type_name).strip()
    if type_name.endswith("*"):  # a pointer's element type resolves the same way
        element, known = _resolve(type_name.rstrip("*"), aliases)
        return element + type_name[len(type_name.rstrip("*")):], known
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
    dtypes: list[Any] | None
    unresolved: tuple[int, ...] = ()  # scalar arguments whose typedef is not resolved
    per_thread: dict[int, cl.Kernel] = dataclasses.field(default_factory=dict)
    # The kernel `create` made, for the first thread that launches: its scalar dtypes are
    # set then (pyopencl generates its argument code again for them), not when it is
    # obtained: a build obtains every kernel of a program, a process launches some.
    # A list: `pop` hands it to one thread only.
    spare: list[cl.Kernel] = dataclasses.field(default_factory=list)
    # Buffers of other contexts crash runtimes that do not check handles (see
    # `_guards_buffers`): there, the pointer arguments' buffers are checked against the
    # ones already seen in this context (int_ptr), a new one once (its context). An
    # address is forgotten when its buffer is released; one freed by garbage collection
    # is not seen (pyopencl frees it in C++), so a buffer of another context made at
    # that very address is trusted: the one case left unchecked.
    context: cl.Context | None = None
    buffer_slots: tuple[int, ...] | None = None  # None: no check (the runtime refuses them)
    known_buffers: set[int] = dataclasses.field(default_factory=set)
    # Where no buffer guard looks at each pointer argument: those an Array may come in
    # (converted to its buffer before the runtime sees it, its dtype checked first).
    array_slots: tuple[int, ...] = ()
    pointer_types: dict[int, PointerType] = dataclasses.field(default_factory=dict)
    sizes: SizeLimits = dataclasses.field(default_factory=SizeLimits.unlimited)
    seen_sizes: set[object] = dataclasses.field(default_factory=set)  # `sizes.seen`, one lookup nearer
    # The last (global, local) pair found possible: the same tuples again skip hashing
    # them (an identity test; one attribute holds the pair, so threads never mix two).
    last_sizes: tuple[object, object] = (None, None)
    # (index, element bytes) of each pointer argument every work-item indexes with
    # `get_global_id(0)` (`global_indexing`): its buffer's size is read at each launch
    # (an address is reused by a smaller buffer too often to remember one), ~0.1 us.
    sized_slots: tuple[tuple[int, int], ...] = ()

    @classmethod
    def create(
        cls, name: str, device: cl.Device, label: str, program: cl.Program, entry: str,
        recorded: list[ArgInfo] | None = None,
        aliases: Mapping[str, str | None] | None = None,
        indexed: frozenset[int] = frozenset(),
    ) -> "Launchable":
        """Raises `cl.Error` if the program has no kernel `entry`. `recorded`: argument
        info persisted with a binary (already resolved; some drivers' programs loaded from
        binaries lose it), used as it is when no `aliases` are given. `aliases`: the
        unit's typedefs, to resolve the driver's argument info with. `indexed`: the
        pointer arguments every work-item indexes with its global id, by index."""
        first = cl.Kernel(program, entry)
        if recorded is not None and aliases is None:
            infos: list[ArgInfo] | None = recorded
        else:
            infos = _arg_infos(first, int(device.address_bits), aliases or {}) or recorded
        dtypes = None if infos is None else [
            None if a.pointer else SCALAR_DTYPES.get(a.type_name) for a in infos
        ]
        unresolved = () if infos is None else tuple(
            i for i, a in enumerate(infos) if not a.pointer and not a.resolved
        )
        num_args = int(first.num_args)
        slots = None if not guards_buffers(device) else tuple(
            i for i in range(num_args) if infos is None or infos[i].pointer)
        typed = tuple((i, t) for i, a in enumerate(infos or ())
                      if a.pointer and (t := pointer_type(a.type_name)) is not None)
        limits = SizeLimits.of(device, first, program)
        launchable = cls(name, label, program, entry, num_args, infos, dtypes,
                         unresolved, context=program.context, buffer_slots=slots,
                         array_slots=() if slots is not None else tuple(
                             i for i in range(num_args) if infos is None or infos[i].pointer),
                         pointer_types=dict(typed), sizes=limits, seen_sizes=limits.seen,
                         sized_slots=_sized_slots(infos, indexed, num_args))
        launchable.spare.append(first)
        if slots is not None:
            released.watch(launchable)
        return launchable

    def forget_buffer(self, int_ptr: int) -> None:
        """A buffer at this address was released: the next one there may be any
        context's, so it is checked again."""
        self.known_buffers.discard(int_ptr)

    def _new_kernel(self) -> cl.Kernel:
        try:
            return self.spare.pop()
        except IndexError:
            return cl.Kernel(self.program, self.entry)

    def _adopt(self, kernel: cl.Kernel) -> cl.Kernel:
        if self.dtypes is not None:
            kernel.set_scalar_arg_dtypes(self.dtypes)
        self.per_thread[threading.get_ident()] = kernel
        return kernel

    def enqueue(
        self,
        queue: cl.CommandQueue,
        global_size: int | Sequence[int],
        local_size: int | Sequence[int] | None,
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
        last = self.last_sizes
        if global_size is not last[0] or local_size is not last[1]:
            try:
                possible = (global_size, local_size) in self.seen_sizes
            except TypeError:  # not integers: said by the check
                possible = False
            if not possible:
                self._check_sizes(global_size, local_size)
            self.last_sizes = (global_size, local_size)
        kernel = self.per_thread.get(threading.get_ident())
        if kernel is None:
            kernel = self._adopt(self._new_kernel())
        # What would crash the process instead of failing: a released buffer (one dict
        # test while none is), a buffer of another context where the runtime follows it
        # (per pointer argument: a class test and a set lookup). Inline: a call costs
        # more than the checks.
        if RELEASED and not RELEASED.keys().isdisjoint(map(id, args)):
            self._refuse_buffers(args)
        sized = self.sized_slots
        if sized:
            items = global_size[0]  # type: ignore[index]
            for i, element in sized:
                value: Any = args[i]
                if value.__class__ is not _BUFFER or value.size < items * element:
                    self._refuse_short(args, items)  # an Array, a mistake, too small
                    break
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
                args = self._as_buffers(args)
                break
        else:
            for i in self.array_slots:
                value = args[i]
                if value.__class__ is not _BUFFER and isinstance(value, cla.Array):
                    self._refuse_buffers(args)  # its dtype against the declared type
                    args = self._as_buffers(args)
                    break
        try:
            kernel.set_args(*args)
            return _ENQUEUE(queue, kernel, global_size, local_size)
        except (cl.Error, TypeError, ValueError, OverflowError, RuntimeError) as error:
            # The runtime's or pyopencl's refusal: explained off the hot path, after one
            # more try with any Array still passed as its buffer (a released buffer is
            # refused first: a sub-buffer of it would crash).
            self._refuse_buffers(args)
            converted = self._as_buffers(args)
            if converted is not args:
                try:
                    kernel.set_args(*converted)
                    return _ENQUEUE(queue, kernel, global_size, local_size)
                except (cl.Error, TypeError, ValueError, OverflowError, RuntimeError):
                    pass
            raise KernelLaunchError(self._explain(error, args)) from error

    def _as_buffers(self, args: tuple[object, ...]) -> tuple[object, ...]:
        """The arguments with `pyopencl.array.Array`s as their buffers (pyopencl refuses
        an Array itself), sub-buffers checked like any buffer; `args` if there is none."""
        try:
            converted = with_buffers(args)
        except cl.Error as refused:
            raise KernelLaunchError(
                f"kernel {self.name!r} on {self.device_label}: an array view at an "
                f"offset the device cannot address as a sub-buffer "
                f"({str(refused).split(': ')[-1]}); pass a copy or an aligned view") from None
        if converted is None:
            return args
        self._refuse_buffers(converted)
        return converted

    def _check_sizes(self, global_size: object, local_size: object) -> None:
        problem = self.sizes.problem(global_size, local_size)
        if problem:
            raise KernelLaunchError(f"kernel {self.name!r} on {self.device_label}: {problem}")

    def _refuse_short(self, args: tuple[object, ...], items: int) -> None:
        """Raise for a buffer smaller than the `items` elements every work-item's
        `get_global_id(0)` reaches (an Array: the buffer the kernel would get)."""
        if items > _INDEX_LIMIT:  # an int index wraps: what it reaches is not known
            return
        for i, element in self.sized_slots:
            passed = args[i]
            size = _bytes_passed(passed)
            if size is not None and size < items * element:
                info = self.args[i] if self.args is not None else None
                where = f"{info.name}[get_global_id(0)]" if info else "it"
                raise KernelLaunchError(self._argument_problem(
                    i, passed, f"holds {size} bytes; {items} work-items along dimension 0 "
                    f"need {items * element} bytes ({items} x {element}-byte elements): the kernel "
                    f"indexes {where} on every work-item; pass a larger buffer or launch "
                    f"fewer items"))

    def _dtype_problem(self, index: int, array: cla.Array) -> str | None:
        wanted = self.pointer_types.get(index)
        if wanted is None or array.dtype is wanted.scalar and wanted.width == 1:
            return None
        problem = dtype_problem(wanted, array.dtype, array.size)
        return problem and self._argument_problem(index, array, problem)

    def _refuse_buffers(self, args: tuple[object, ...]) -> None:
        """Raise for a released buffer or one of another context; remember the buffers
        found to be this context's. Never asks a released buffer anything: that alone
        crashes some runtimes."""
        problem = self._buffer_problem(args)
        if problem:
            raise KernelLaunchError(problem)

    def _buffer_problem(self, args: tuple[object, ...]) -> str | None:
        for i, passed in enumerate(args):
            value = passed
            if isinstance(passed, cla.Array):
                problem = self._dtype_problem(i, passed)
                if problem:
                    return problem
                value = passed.base_data
            if not isinstance(value, cl.MemoryObjectHolder):
                continue
            if released.is_released(value):
                return self._argument_problem(
                    i, passed, "was released (its .release() was called) before this launch")
            if value.int_ptr in self.known_buffers:
                continue
            other = other_context(value, self.context)
            if other:
                return self._argument_problem(
                    i, passed, f"belongs to another context ({other}), not this stream's; "
                    "create it in the stream's context (client.context), or adopt its "
                    "context: clmodes.client(context=ctx).stream(queue=q)")
            if len(self.known_buffers) >= _KNOWN_BUFFERS:
                self.known_buffers.clear()
            self.known_buffers.add(value.int_ptr)
        return None

    def _argument_problem(self, index: int, value: object, problem: str) -> str:
        head = f"kernel {self.name!r} on {self.device_label}: argument {index}"
        if self.args is not None and index < len(self.args):
            info = self.args[index]
            head += f" ({info.type_name} {info.name})"
        return f"{head}: the {type(value).__name__} passed {problem}"

    def _signature(self) -> str:
        if self.args is None:
            return ""
        return " (" + ", ".join(f"{a.type_name} {a.name}" for a in self.args) + ")"

    def _explain(self, error: Exception, args: tuple[object, ...]) -> str:
        head = f"kernel {self.name!r} on {self.device_label}: "
        buffers = self._buffer_problem(args)  # where the runtime refused them itself
        if buffers:
            return buffers
        problem = argument_problem(self.args, self.dtypes, self.unresolved, args)
        if problem:
            return head + problem
        return f"{head}{error}"


def _sized_slots(infos: list[ArgInfo] | None, indexed: frozenset[int],
                 num_args: int) -> tuple[tuple[int, int], ...]:
    """(index, element bytes) of the `indexed` pointers whose element type is known."""
    if infos is None or len(infos) != num_args:
        return ()
    slots = []
    for i in sorted(indexed):
        if i < num_args and infos[i].pointer:
            element = element_bytes(infos[i].type_name)
            if element is not None:
                slots.append((i, element))
    return tuple(slots)


def _bytes_passed(value: object) -> int | None:
    """The size of the buffer a launch hands the kernel for `value`; None where clmodes
    does not read one (an image, SVM, local memory, not memory at all)."""
    try:
        if isinstance(value, cla.Array):
            base = value.base_data
            if not isinstance(base, cl.Buffer):
                return None
            return int(value.nbytes) if value.offset else int(base.size)
        if isinstance(value, cl.Buffer):
            return int(value.size)
    except cl.Error:
        return None
    return None


_BUFFER, _LOCAL = cl.Buffer, cl.LocalMemory
_INDEX_LIMIT = 2**31  # the most items an `int` global id counts without wrapping
# pyopencl's own `enqueue_nd_range_kernel`, under clmodes' launch hook where that is
# installed (`pyopencl_hooks.launches`, which keeps it as `__wrapped__`). A launch here is
# already decided by its stream; through `kernel(queue, ...)` it went through pyopencl's
# generated invoker into the hook again, whose fast path let it through: ~0.3-0.8 us of a
# 3-4 us launch (`ci/bench/bench_core.py`, part 2). `set_args` is the same invoker's
# argument conversion (the kernel's scalar dtypes), then the same C call with its defaults.
_ENQUEUE = getattr(cl._cl.enqueue_nd_range_kernel, "__wrapped__", cl._cl.enqueue_nd_range_kernel)
_KNOWN_BUFFERS = 4096  # buffers remembered per kernel; past that, seen ones are checked again
