"""One server per OpenCL device: its context, compile queue, obtained kernels and streams.

The server acts on verdicts; it never derives them (see `execution.modes`).

Obtaining a kernel flushes the *whole* compile queue: queued kernels the store holds
binaries for are loaded (counted as `loaded`), the rest are built in as few
`Program.build`s as pay on this runtime (`batch.plan`: batches of at most `max_units`,
units that cannot batch alone), issued back to back (counted as `compiled`). A build's
fixed cost dominates small kernels, so one build of N units is many times cheaper than N
builds. Builds are serialized per device by a build lock, while launches of
already-obtained kernels read a dict without any lock, so a long batch build never stalls
work that is ready to run.

A batch that fails is not halved blindly: each unit's `#line` tag makes the build log
name the units at fault, each of those is built alone (it may only have failed to
batch; alone, its error carries its own build log and line numbers) and the rest is
rebuilt once, so F failing units cost 2 + F builds. Only a log that names no unit (a
driver that ignores `#line` file names) falls back to halving.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pyopencl as cl

from clmodes import programs, pyopencl_hooks
from clmodes.building import BUILD_OPTIONS, build_batch, build_log, kernel_names
from clmodes.device import Device
from clmodes.errors import ClmodesError, KernelBuildError
from clmodes.execution import Counter, LaunchMode, tally, usage
from clmodes.execution.misses import StrictMissError
from clmodes.store.misses import report_kernel_misses
from clmodes.kernel import Kernel
from clmodes.global_indexing import indexed_pointers
from clmodes.launchable import Launchable
from clmodes.programs import HeldProgram, ObtainedKernel
from clmodes.pyopencl_hooks import registry
from clmodes.pyopencl_hooks.held import SourcePrograms
from clmodes.store import Store

if TYPE_CHECKING:
    from clmodes.batch.predefined import CompilerMacros
    from clmodes.batch.program import Batch
    from clmodes.compiler_probe import CompilerProbe

log = logging.getLogger("clmodes")

# Always requested: argument info lets launches check and convert arguments by name.

# Enum members as module constants: the launch path compares against them every launch.
_QUEUE, _COMPILE = LaunchMode.QUEUE, LaunchMode.COMPILE

class DeviceServer:
    """The state of one device. Created once per device by its runtime (`clmodes.client()`)."""

    def __init__(self, device: Device, store: Callable[[], Store],
                 context: cl.Context | None = None) -> None:
        """`context`: a user's context to adopt (one device: this one); default: its own."""
        self.device = device
        self._store = store
        self.context = context if context is not None else cl.Context([device.cl_device])
        # pyopencl's own programs on this context (ElementwiseKernel, arrays, ...).
        self.pyopencl = SourcePrograms(device, self.context, store)
        pyopencl_hooks.install()
        registry.manage(self.context, self.pyopencl)
        self._lock = threading.Lock()  # guards the queue
        self._build_lock = threading.RLock()  # one build at a time; obtain() re-enters via flush()
        self._queue: dict[str, Kernel] = {}
        self._obtained: dict[str, Launchable] = {}
        self._failed: dict[str, ClmodesError] = {}
        self._built: dict[str, Kernel] = {}  # compiled from source here: what persist describes
        # Built from source here, and the program has no such kernel: recorded at persist so
        # that a later process fails it at once instead of building its unit again.
        self._absent: dict[str, Kernel] = {}
        self._programs: dict[str, HeldProgram] = {}
        # Every unit built or loaded so far -> its program: another entry point of such a
        # unit (two kernels of one source) is obtained from it without a new build.
        self._unit_programs: dict[str, HeldProgram] = {}

    # -- the compile queue -------------------------------------------------------------

    def queue_kernel(self, kernel: Kernel) -> None:
        """Queue a kernel for the next batch, unless it is already obtained or queued."""
        key = kernel.key
        if key in self._obtained or key in self._failed:
            return
        with self._lock:
            self._queue.setdefault(key, kernel)

    def queued(self) -> int:
        """How many kernels wait in the compile queue (introspection: tests and benchmarks
        check the contract with it)."""
        with self._lock:
            return len(self._queue)

    def ready(self, kernel: Kernel) -> Launchable | None:
        """The obtained kernel, when a launch may go straight to it (nothing recording)."""
        return None if usage.RECORDINGS.live else self._obtained.get(kernel.key)

    def is_obtained(self, kernel: Kernel) -> bool:
        """Is the kernel obtained (compiled or loaded) on this device? (introspection)"""
        return kernel.key in self._obtained

    def obtain(self, kernel: Kernel) -> Launchable:
        """The kernel ready to launch; obtains it and everything queued with it if needed."""
        found = self._obtained.get(kernel.key)
        if found is not None:
            return found
        with self._build_lock:
            if kernel.key not in self._obtained and kernel.key not in self._failed:
                held = self._unit_programs.get(kernel.unit_key)
                counter = Counter.COMPILED if held and held.source else Counter.LOADED
                # A loaded program without this entry point: its source decides.
                if held is None or self._adopt(held, [kernel], counter):
                    self.queue_kernel(kernel)
                    self.flush()
        found = self._obtained.get(kernel.key)
        if found is None:
            raise self._failed[kernel.key]
        return found

    def flush(self) -> None:
        """Obtain everything queued now: load what the store holds, build the rest."""
        with self._build_lock:
            with self._lock:
                kernels, self._queue = list(self._queue.values()), {}
            if not kernels:
                return
            store = self._store()
            remaining = self._known_absent(self._load_stored(kernels, store), store)
            if not remaining or not self._report_misses(remaining, store):
                return
            # Imported here: the batch machinery (pcpp, the preprocessor, the renamer) is
            # what a source build needs, and a warmed process never builds (its start is
            # measured in ci/bench/bench_warm_start.py).
            from clmodes.batch.limits import build_fixed_s, max_units
            from clmodes.batch.program import plan

            platform = self.device.platform_name
            for batch in plan(remaining, self.macros_for, max_units(platform),
                              self.compiler.ask, build_fixed_s(platform)):
                self._build_isolating(batch, remaining)

    def _report_misses(self, kernels: list[Kernel], store: Store) -> bool:
        """Report each kernel about to be built from source (`clmodes check`); under
        `CLMODES_STRICT=1` each fails with the miss instead. False: nothing to build."""
        try:
            report_kernel_misses(store, self.device, kernels)
        except StrictMissError as error:
            self._failed.update(dict.fromkeys((k.key for k in kernels), error))
            return False
        return True

    @functools.cached_property
    def compiler(self) -> CompilerProbe:
        """What its compiler predefines, asked of it when a unit reads such a name: made at
        the first source build, so that a process loading stored kernels never queries the
        device's traits nor imports the probe (ci/bench/bench_warm_start.py)."""
        from clmodes.batch.predefined import DeviceTraits
        from clmodes.compiler_probe import CompilerProbe

        return CompilerProbe(self.device, self._store, DeviceTraits.of(self.device.cl_device))

    def macros_for(self, options: tuple[str, ...]) -> CompilerMacros:
        """What this device's compiler predefines under these build options (as far as
        it has been asked: `compiler_probe`)."""
        return self.compiler.macros_for(options)

    # -- loading from the store ----------------------------------------------------------

    def _load_stored(self, kernels: list[Kernel], store: Store) -> list[Kernel]:
        """Obtain the kernels whose batches the store holds; return the others."""
        index = store.kernel_batches(self.device.fingerprint.exact, [k.key for k in kernels])
        by_batch: dict[str, list[Kernel]] = {}
        for kernel in kernels:
            if kernel.key in index:
                by_batch.setdefault(index[kernel.key], []).append(kernel)
        remaining = [k for k in kernels if k.key not in index]
        for batch, members in by_batch.items():
            held = self._programs.get(batch) or self._load(store, batch, members[0].options)
            if held is None:
                remaining.extend(members)
                continue
            missing = self._adopt(held, members, Counter.LOADED)
            if missing:
                self._drop_loaded(store, held, missing)
                remaining.extend(missing)
        return remaining

    def _drop_loaded(self, store: Store, held: HeldProgram, missing: list[Kernel]) -> None:
        """Forget a loaded program whose binary lacks a kernel indexed to it (`programs.drop`)."""
        programs.drop(store, self.device, held, missing[0].name)
        self._programs.pop(held.batch, None)
        for unit in [u for u, h in self._unit_programs.items() if h is held]:
            del self._unit_programs[unit]

    def _load(self, store: Store, batch: str, options: tuple[str, ...]) -> HeldProgram | None:
        held = programs.load(store, self.device, self.context, batch, (*BUILD_OPTIONS, *options))
        if held is None:
            return None
        self._programs[batch] = held
        for unit in held.captured:
            self._unit_programs.setdefault(unit, held)
        return held

    # -- building ----------------------------------------------------------------------

    def _build_isolating(self, batch: Batch, kernels: list[Kernel]) -> None:
        """Build a batch; on failure, isolate the failing units (see the module doc)."""
        try:
            program = self._build(batch)
        except cl.Error as error:
            self._isolate(batch, kernels, build_log(error))
            return
        self._hold(batch, program, kernels)

    def _isolate(self, batch: Batch, kernels: list[Kernel], build_log: str) -> None:
        if not batch.renamed:
            self._fail(batch, kernels, build_log)
            return
        from clmodes.batch.program import Batch
        from clmodes.batch.unit import failing_units

        blamed = failing_units(build_log, batch.keys)
        log.info("batch of %d units failed on %s; %s", len(batch.units), self.device.label,
                 f"{len(blamed)} named in its log" if blamed else "its log names no unit")
        if not blamed:
            if len(batch.units) == 1:
                self._build_isolating(Batch.alone(batch.units[0]), kernels)
                return
            for half in batch.halves():
                self._build_isolating(half, kernels)
            return
        for part in batch.isolating(blamed):
            self._build_isolating(part, kernels)

    def _hold(self, batch: Batch, program: cl.Program, kernels: list[Kernel]) -> None:
        held = self._programs[batch.content_hash] = HeldProgram(batch.content_hash, program, batch)
        units = set(batch.keys)
        for unit in units:
            self._unit_programs[unit] = held
        self._adopt(held, [k for k in kernels if k.unit_key in units], Counter.COMPILED)

    def _build(self, batch: Batch, counted: bool = True) -> cl.Program:
        return build_batch(self.context, self.device, batch, counted)

    def _adopt(self, held: HeldProgram, kernels: list[Kernel], counter: Counter) -> list[Kernel]:
        """Create the kernels of a held program and count them as compiled or loaded.
        Returns those a *loaded* program lacks (its binary may not be what the store says:
        only a build from source can tell that the source has no such kernel)."""
        adopted, missing = 0, []
        for kernel in kernels:
            launchable = self._launchable(held, kernel)
            if launchable is None and held.source is None:
                missing.append(kernel)
                continue
            if launchable is None:
                self._note_absent(held, kernel)
                continue
            held.kernels[kernel.key] = ObtainedKernel(kernel.name, launchable.args, kernel.unit_key)
            if counter is Counter.COMPILED:
                self._built[kernel.key] = kernel
            self._obtained[kernel.key] = launchable
            adopted += 1
        tally(counter, adopted)
        tally(Counter.KERNELS, adopted)
        return missing

    def _note_absent(self, held: HeldProgram, kernel: Kernel) -> None:
        """Fail a kernel its program, built here from source, lacks; keep it to persist
        only when the driver's list of kernels confirms it (`Launchable.create` failing
        for another cause is no fact about the source)."""
        self._failed[kernel.key] = self._absent_error(kernel)
        names = kernel_names(held.program)
        if held.source is not None and names is not None and held.source.entry(kernel) not in names:
            self._absent[kernel.key] = kernel

    def _absent_error(self, kernel: Kernel) -> KernelBuildError:
        return KernelBuildError(kernel.name, self.device.label,
                                f"its source has no __kernel function named {kernel.name!r}")

    def _known_absent(self, kernels: list[Kernel], store: Store) -> list[Kernel]:
        """Fail the kernels a build from source showed absent on this device (here, or in
        an earlier process: the store's absent_kernel table); return the others."""
        if not kernels:
            return kernels
        absent = store.absent_kernels(self.device.fingerprint.exact, [k.key for k in kernels])
        for kernel in kernels:
            if kernel.key in absent:
                log.debug("kernel %r: its source has none on %s (known from an earlier build)",
                          kernel.name, self.device.label)
                self._failed[kernel.key] = self._absent_error(kernel)
        return [k for k in kernels if k.key not in absent]

    def _launchable(self, held: HeldProgram, kernel: Kernel) -> Launchable | None:
        """The kernel's entry point in a held program, with its argument types."""
        recorded = held.stored_args.get(kernel.key)
        aliases: dict[str, str | None] | None
        if held.source is not None:
            entries = [held.source.entry(kernel)]
            aliases = held.source.aliases(kernel.unit_key)
        else:  # loaded: the store keeps the batch, not its form; the entry point tells
            entries = [kernel.entry_name, kernel.name]
            aliases = None if recorded is not None else self.aliases_for(kernel)
        indexed = indexed_pointers(kernel.source, kernel.name, (d for d, _ in kernel.defines))
        for entry in entries:
            try:
                launchable = Launchable.create(
                    kernel.name, self.device.cl_device, self.device.label, held.program,
                    entry, recorded, aliases, indexed,
                )
            except cl.Error:
                continue
            return launchable if self._serves(held, kernel, launchable) else None
        return None

    @staticmethod
    def _serves(held: HeldProgram, kernel: Kernel, launchable: Launchable) -> bool:
        """May `held` serve `kernel` as `launchable`? A loaded program holds every unit
        of its batch, but the store records argument info only for the kernels indexed
        to it, and some drivers (Intel's) keep none in a program made from a binary. A
        kernel of such a unit that the store indexes to *another* batch (two batches can
        hold one unit: two processes built it at once) would come out of this one with
        no argument types, and its first launch with a Python scalar fails in the
        driver (`set_arg ... INVALID_VALUE`) although `warm` counted it loaded. So a
        loaded program serves a kernel not indexed to it only where the driver gives
        its argument info; otherwise the store's index decides (`_load_stored`)."""
        return (held.source is not None or kernel.key in held.stored_args
                or launchable.args is not None or launchable.num_args == 0)

    def aliases_for(self, kernel: Kernel) -> dict[str, str | None]:
        """The kernel's typedefs as its device's compiler sees them (see `PreparedUnit`)."""
        from clmodes.batch.unit import Unit, prepare_asking

        unit = Unit.of(kernel)
        return dict(prepare_asking(unit, self.macros_for(kernel.options), self.compiler.ask).aliases)

    def _fail(self, batch: Batch, kernels: list[Kernel], build_log: str) -> None:
        unit = batch.units[0].unit_key
        for kernel in kernels:
            if kernel.unit_key == unit:
                log.warning("kernel %r failed to build on %s", kernel.name, self.device.label)
                self._failed[kernel.key] = KernelBuildError(kernel.name, self.device.label, build_log)

    # -- persisting --------------------------------------------------------------------

    def persist(self, store: Store, used: set[str] | None = None) -> int:
        """Capture the kernels in `used` (all, if None) that were built here, and index
        every such kernel to the binary holding it. Returns the number of binaries written."""
        with self._build_lock:
            written = sum(
                programs.persist(store, self.device, held, used,
                                 lambda batch: self._build(batch, counted=False))
                for held in list(self._programs.values())
            )
            built = [k for key, k in self._built.items() if used is None or key in used]
            if built:
                store.put_kernel_identities(self.device.fingerprint.exact,
                                            [(k.key, k.name, k.descriptor()) for k in built])
            absent, self._absent = self._absent, {}
            if absent:
                store.put_absent_kernels(self.device.fingerprint.exact,
                                         [(k.key, k.name) for k in absent.values()])
            return written

    def forget_captures(self) -> None:
        """Take every program built here as not yet captured (a commit that was to hold
        their binaries failed: `warming`), so that the next persist captures them again.
        Loaded programs keep theirs: the store already holds those."""
        with self._build_lock:
            for held in self._programs.values():
                if held.source is not None:
                    held.captured.clear()
                    held.stored_sources.clear()
            self.pyopencl.forget_captures()

    def stored_sources(self) -> list[tuple[Batch, dict[str, str]]]:
        """The batches whose binaries this server captured into the store, with their
        sources and options, each with its kernels' units (kernel key -> unit key): what
        an offline build for another device compiles (`clmodes.offline.targets`), so that
        it builds exactly what was stored here, and can split a batch by unit."""
        with self._build_lock:
            found: dict[str, tuple[Batch, dict[str, str]]] = {}
            for held in self._programs.values():
                for digest, batch in held.stored_sources.items():
                    units = set(batch.keys)
                    kernels = {key: o.unit for key, o in held.kernels.items() if o.unit in units}
                    found.setdefault(digest, (batch, {}))[1].update(kernels)
        return [found[h] for h in sorted(found)]

    # -- acting on a launch's verdict ---------------------------------------------------------------------

    def act(
        self,
        queue: cl.CommandQueue,
        kernel: Kernel,
        verdict: LaunchMode,
        global_size: int | Sequence[int],
        local_size: int | Sequence[int] | None,
        args: tuple[object, ...],
    ) -> cl.Event | None:
        """Act on a verdict resolved by the caller's thread."""
        usage.note(kernel.key)
        if verdict is _QUEUE:
            self.queue_kernel(kernel)
            return None
        launchable = self._obtained.get(kernel.key) or self.obtain(kernel)
        if verdict is _COMPILE:
            return None
        return launchable.enqueue(queue, global_size, local_size, args)
