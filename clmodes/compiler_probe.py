"""Asking a device's own compiler what it predefines, so that units reading such names batch.

clmodes preprocesses each unit before batching it, and a unit whose conditionals read a
name only the compiler knows (`__OPENCL_C_VERSION__` without `-cl-std`, `__clang__`,
`__NV_CL_C_VERSION`, `__has_builtin(x)`, an extension macro) used to build alone. Here
the compiler answers instead: one small program per (exact device, options digest, name
set) reports, per name, whether it is defined and what it expands to; an expansion that
is an integer literal is its `#if` value, anything else reads as "defined, no integer"
(`Answer.value` None), which `#ifdef` may read and `#if` arithmetic may not.

Why stringizing (`#define S(x) #x`) and not `(long)(NAME)` in code: any expansion can be
stringized, so one odd macro (`NULL`, `INFINITY`, an empty one) cannot break the probe
build for the hundred other names; the integer is read from the text here.

The probe is built exactly as a batch is (`building.BUILD_OPTIONS`, the unit's options
without `-D`/`-I`, pyopencl's platform and environment options), so it sees what the
batch's compiler sees. Answers are kept per exact device (the fingerprint holds the
driver) and options digest, in memory and in the store's `compiler_macro` table: a second
process asks the store, not the compiler. A failed probe (build or run) answers nothing:
the units that needed it build alone, as before, with a log line; it is not retried in
this process.

The first probe for a digest also asks every extension and feature the device lists and
a set of common vendor macros, so the predefined set becomes the compiler's (Intel's CPU
compiler does not define `cl_khr_integer_dot_product`, which its device lists) and later
units seldom need a probe of their own.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable, Iterable

import numpy as np
import pyopencl as cl

from clmodes import settings
from clmodes import compiler_output
from clmodes.batch.predefined import FEATURE_CHECKS, Answer, CompilerMacros, DeviceTraits, is_call
from clmodes.building import BUILD_OPTIONS
from clmodes.device import Device
from clmodes.kernel import compile_options, split_options
from clmodes.store import Store

log = logging.getLogger("clmodes")

# Bump when the probe program or the reading of its answers changes: older rows are
# then never read for these.
PROBE_FORMAT = "clmodes-macro-probe-1"
# The first line of every probe program: how a build counter tells it from a kernel's.
PROBE_MARK = "/* clmodes: which macros does this compiler predefine? */"
_SLOT = 256  # bytes per answer: a flag and the expansion's text
COMMON = tuple(
    """
    __OPENCL_VERSION__ __OPENCL_C_VERSION__ CL_VERSION_1_0 CL_VERSION_1_1 CL_VERSION_1_2
    CL_VERSION_2_0 CL_VERSION_2_1 CL_VERSION_2_2 CL_VERSION_3_0 __ENDIAN_LITTLE__
    __IMAGE_SUPPORT__ __FAST_RELAXED_MATH__ __EMBEDDED_PROFILE__ __clang__ __clang_major__
    __clang_minor__ __x86_64__ __i386__ __aarch64__ __arm__ __SPIR__ __SPIR32__ __SPIR64__
    __SPIRV__ __AMDGCN__ __AMD__ __GPU__ __CPU__ __NVPTX__ __NV_CL_C_VERSION __POCL__
    __APPLE__ __ANDROID__ __MALI__ __INTEL__ __IMAGE_SUPPORT__ FP_FAST_FMA FP_FAST_FMAF
    __has_builtin __has_attribute __has_feature __has_extension
    """.split()
)
_FLAGS = (b"U", b"D", b"T", b"F")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_CALL = re.compile(r"([A-Za-z_]\w*)\(([A-Za-z_]\w*)\)")
_INTEGER = re.compile(r"\s*([-+]?)\s*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*\s*")


def relevant_options(options: Iterable[str]) -> tuple[str, ...]:
    """The options a compiler's predefined macros can depend on: all but `-D` (a unit's
    own defines, preprocessed as its own) and `-I` (paths)."""
    _, rest = split_options(list(options))
    return compile_options(tuple(rest))


def options_digest(options: Iterable[str]) -> str:
    """What answers are keyed by: the probe format, the build options that matter and
    what pyopencl adds to every build from the environment."""
    parts = [PROBE_FORMAT, *BUILD_OPTIONS, *relevant_options(options), "\0env",
             *settings.PYOPENCL_BUILD_OPTIONS.get()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def probe_source(queries: list[str], expand: bool = True) -> str:
    """One program answering every query: a `__constant` string per query, "U"
    (undefined) or "D" + its expansion (calls: "T"/"F", how `#if` reads it, + expansion),
    copied out by one work item. A feature-check name asked plainly (`__has_builtin`) is
    only tested with `#ifdef`: clang refuses to expand it without its parentheses.
    `expand` False: no expansion at all (the fallback when one broke the build)."""
    lines = [PROBE_MARK, "#define CLMODES_STR(x) #x", "#define CLMODES_XSTR(x) CLMODES_STR(x)",
             "void clmodes_put(__global uchar *out, __constant char *text) {",
             f"    for (int i = 0; i < {_SLOT - 1} && text[i]; ++i) out[i] = (uchar)text[i];",
             "}"]
    for number, query in enumerate(queries):
        lines.append(f"__constant char clmodes_q{number}[] =")
        call = _CALL.fullmatch(query)
        if call is None:
            shown = f" CLMODES_XSTR({query})" if expand and query not in FEATURE_CHECKS else ""
            lines += [f"#ifdef {query}", f'    "D"{shown};', "#else", '    "U";', "#endif"]
        else:
            shown = f"    CLMODES_XSTR({query});" if expand else "    ;"
            lines += [f"#if defined({call.group(1)})", f"#if {query}", '    "T"', "#else",
                      '    "F"', "#endif", shown, "#else", '    "U";', "#endif"]
    lines.append("__kernel void clmodes_probe(__global uchar *out) {")
    lines += [f"    clmodes_put(out + {n * _SLOT}, clmodes_q{n});" for n in range(len(queries))]
    lines.append("}")
    return "\n".join(lines) + "\n"


def integer(text: str) -> int | None:
    """The value of an expansion that is one integer literal (in parentheses or not)."""
    stripped = text.strip()
    while stripped.startswith("(") and stripped.endswith(")"):
        stripped = stripped[1:-1].strip()
    match = _INTEGER.fullmatch(stripped)
    if match is None:
        return None
    sign, digits = match.group(1), match.group(2)
    if digits.lower().startswith("0x"):
        value = int(digits, 16)
    elif digits.startswith("0") and len(digits) > 1:
        value = int(digits, 8)
    else:
        value = int(digits)
    return -value if sign == "-" else value


def read_answer(query: str, slot: bytes) -> Answer:
    """One query's answer from its slot of the probe's output (its flag checked)."""
    text = slot.split(b"\0", 1)[0].decode("latin-1")
    flag, expansion = text[:1], text[1:]
    if flag == "U":
        return Answer(False)
    if len(text) >= _SLOT - 1:  # cut short: no value can be trusted
        return Answer(True)
    value = integer(expansion) if expansion else None
    if flag in ("T", "F"):
        truth = 1 if flag == "T" else 0
        if value is None or bool(value) != bool(truth):
            value = truth  # how `#if` reads the call is the compiler's answer
    return Answer(True, value)


def run_probe(context: cl.Context, device: cl.Device, options: Iterable[str],
              queries: list[str]) -> dict[str, Answer]:
    """Build and run one probe; raises `cl.Error` (or RuntimeError) when it cannot. A
    build that fails on some name's expansion is tried once more without expansions."""
    build_options = [*BUILD_OPTIONS, *relevant_options(options)]
    try:
        program = _built(context, device, probe_source(queries), build_options)
        expanded = True
    except cl.Error as error:
        log.debug("clmodes: the macro probe with expansions failed on %s (%s); asking "
                  "only which names are defined", device.name, str(error).splitlines()[0])
        program = _built(context, device, probe_source(queries, expand=False), build_options)
        expanded = False
    out = np.zeros(len(queries) * _SLOT, dtype=np.uint8)
    queue = cl.CommandQueue(context, device)
    buffer = cl.Buffer(context, cl.mem_flags.WRITE_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    cl.Kernel(program, "clmodes_probe")(queue, (1,), (1,), buffer)
    cl.enqueue_copy(queue, out, buffer)
    queue.finish()
    raw = out.tobytes()
    unwritten = [q for n, q in enumerate(queries) if raw[n * _SLOT:n * _SLOT + 1] not in _FLAGS]
    if unwritten:  # a launch that did not run (or wrote elsewhere) must answer nothing
        raise RuntimeError(f"the probe kernel left {len(unwritten)} answers unwritten")
    answers = {q: read_answer(q, raw[n * _SLOT:(n + 1) * _SLOT]) for n, q in enumerate(queries)}
    if not expanded:  # a name's value was not read: `#if` arithmetic must not use it
        answers = {q: a if is_call(q) or not a.defined else Answer(True) for q, a in answers.items()}
    return answers


def _built(context: cl.Context, device: cl.Device, source: str, options: list[str]) -> cl.Program:
    """Built as `building.build_batch` builds (no pyopencl binary cache), uncounted: a
    probe obtains no kernel."""
    program = cl.Program(cl._cl._Program(context, source))
    with compiler_output.logged(f"the macro probe on {device.name}"):
        program.build(options=options, devices=[device])
    return program


def valid_query(query: str) -> bool:
    return bool(_IDENT.fullmatch(query) or _CALL.fullmatch(query))


class CompilerProbe:
    """One device's compiler answers, per options digest (`macros_for`, `ask`).
    Thread-safe: one lock around the answers, probes run under it (one at a time)."""


    def __init__(self, device: Device, store: Callable[[], Store], traits: DeviceTraits) -> None:
        self.device = device
        # A context of its own, made at the first probe: on the server's context the
        # pyopencl hooks follow the process mode, and under COMPILE_ONLY the probe's
        # launch would not run (every name then read as undefined: caught, but lost).
        self._context: cl.Context | None = None
        self._store = store
        self.traits = traits
        self._lock = threading.RLock()
        self._answers: dict[str, dict[str, Answer]] = {}  # digest -> query -> answer
        self._failed: set[tuple[str, frozenset[str]]] = set()
        self._macros: dict[tuple[str, ...], CompilerMacros] = {}
        self.probes = 0  # probe builds made by this process (introspection for tests)

    def macros_for(self, options: tuple[str, ...]) -> CompilerMacros:
        """The predefined macros under `options`, with every answer known so far."""
        found = self._macros.get(options)
        if found is None:
            with self._lock:
                found = self._macros[options] = CompilerMacros.of(
                    self.traits, options, self._known(options_digest(options)))
        return found

    def ask(self, options: tuple[str, ...], queries: frozenset[str]) -> CompilerMacros | None:
        """The macros with answers for `queries` too (probing once if needed); None
        when the probe failed (those units build alone). The caller stops asking when
        an answer changes nothing (no progress), so a name that stays unknown after it
        is answered (opaque in `#if` arithmetic) costs no second probe."""
        digest = options_digest(options)
        with self._lock:
            known = self._known(digest)
            wanted = sorted(q for q in queries if q not in known and valid_query(q))
            if not wanted:  # answered meanwhile (the store, another queue): no probe
                found = self._macros[options] = CompilerMacros.of(self.traits, options, known)
                return found
            if (digest, frozenset(wanted)) in self._failed:
                return None
            if not self._probe(options, digest, known, wanted):
                self._failed.add((digest, frozenset(wanted)))
                return None
            found = self._macros[options] = CompilerMacros.of(self.traits, options, known)
            return found

    def _known(self, digest: str) -> dict[str, Answer]:
        """Answers for a digest: the store's, read once per process, then this one's."""
        known = self._answers.get(digest)
        if known is None:
            known = self._answers[digest] = {}
            stored = self._store().compiler_macros(self.device.fingerprint.exact, digest)
            for query, data in stored.items():
                answer = Answer.from_json(data)
                if answer is not None and valid_query(query):
                    known[query] = answer
        return known

    def _probe(self, options: tuple[str, ...], digest: str, known: dict[str, Answer],
               wanted: list[str]) -> bool:
        first = not known
        extra = [*self.traits.extensions, *self.traits.features, *COMMON] if first else []
        queries = sorted({q for q in [*wanted, *extra] if q not in known and valid_query(q)})
        try:
            if self._context is None:
                self._context = cl.Context([self.device.cl_device])
            answers = run_probe(self._context, self.device.cl_device, options, queries)
        except (cl.Error, RuntimeError, ValueError) as error:
            log.warning("clmodes: asking the compiler of %s for %d predefined names failed "
                        "(%s); units reading them build alone", self.device.label,
                        len(queries), str(error).splitlines()[0] if str(error) else error)
            return False
        self.probes += 1
        log.debug("asked the compiler of %s for %d predefined names", self.device.label,
                  len(queries))
        known.update(answers)
        names = hashlib.sha256("\0".join(queries).encode()).hexdigest()[:32]
        self._store().put_compiler_macros(self.device.fingerprint.exact, digest, names,
                                          {q: a.as_json() for q, a in answers.items()})
        return True
