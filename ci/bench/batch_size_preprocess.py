"""`bench_batch_size.py --preprocess`: what preprocessing one unit costs, pcpp and libclang.

Part of `bench_batch_size.py`: pcpp (parse + write) and libclang (parse a translation unit;
and whether its token stream is the expanded one), per unit kind, median over units.
"""

from __future__ import annotations

import io
import re
import statistics
import tempfile
import time
from pathlib import Path

from batch_size_units import DEFINES, HEADER, HEADER_NAME, macro_unit


def _pocl_include() -> str | None:
    """The directory of PoCL's wheel that holds opencl-c-base.h, if installed."""
    import importlib.util
    spec = importlib.util.find_spec("pocl_binary_distribution")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        found = sorted(Path(base).rglob("opencl-c-base.h"))
        if found:
            return str(found[0].parent)
    return None


def _median_ms(fn, units: list[str]) -> float:
    times = []
    for text in units:
        t = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def pcpp_figures(units: list[str], include: str, defines: dict[str, str]) -> dict:
    """pcpp: parse + write the preprocessed text (units[0] is the warm-up)."""
    import pcpp

    def pcpp_one(text: str) -> str:
        p = pcpp.Preprocessor()
        p.line_directive = None
        p.add_path(include)
        for name, value in defines.items():
            p.define(f"{name} {value}")
        p.parse(text, "unit.cl")
        buf = io.StringIO()
        p.write(buf)
        if p.return_code:
            raise RuntimeError(f"pcpp reported {p.return_code} error(s)")
        return buf.getvalue()

    expanded = pcpp_one(units[0])  # warm-up, and a check below
    return {
        "pcpp_ms_per_unit": _median_ms(pcpp_one, units[1:]),
        "pcpp_expanded_lines": sum(1 for line in expanded.splitlines() if line.strip()),
        "pcpp_output_has_macros": bool(re.search(r"\b(MAD|IDX2|MWG|REAL)\b", expanded)),
    }


def clang_variants() -> list[tuple[str, list[str]]]:
    """The libclang wheel ships no resource headers, and with -x cl clang includes
    opencl-c-base.h itself: "plain" stops at that fatal error. The others: no standard
    header; that plus clang's table-generated builtin declarations; and the header from
    PoCL's wheel (LLVM 14's) on the include path."""
    variants = [("plain", []), ("no_stdinc", ["-cl-no-stdinc"]),
                ("no_stdinc_builtins",
                 ["-cl-no-stdinc", "-Xclang", "-fdeclare-opencl-builtins"])]
    pocl_include = _pocl_include()
    if pocl_include:
        variants.append(("pocl_header", ["-isystem", pocl_include]))
        variants.append(("pocl_header_default_header",
                         ["-isystem", pocl_include, "-Xclang", "-finclude-default-header"]))
    return variants


def clang_parse_figures(index, units: list[str], args: list[str]) -> dict:
    """Per variant: median ms per parse, its errors (units[0] is the warm-up)."""
    fig: dict = {}
    for variant, extra in clang_variants():
        times, diags = [], []
        index.parse("unit.cl", args=args + extra,
                    unsaved_files=[("unit.cl", units[0])])  # warm-up
        for text in units[1:]:
            t = time.perf_counter()
            tu = index.parse("unit.cl", args=args + extra, unsaved_files=[("unit.cl", text)])
            times.append(time.perf_counter() - t)
            diags = [str(d) for d in tu.diagnostics if d.severity >= 3]
        fig[f"libclang_{variant}_ms_per_unit"] = statistics.median(times) * 1e3
        fig[f"libclang_{variant}_errors"] = diags[:5]
        fig[f"libclang_{variant}_error_count"] = len(diags)
    return fig


def clang_token_figures(ci, index, unit: str, args: list[str]) -> dict:
    """Tokens: libclang's tokens are the file as spelled (before expansion)."""
    opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    tu = index.parse("unit.cl", args=args, options=opts, unsaved_files=[("unit.cl", unit)])
    spelled = [tok.spelling for tok in tu.get_tokens(extent=tu.cursor.extent)]
    kinds_seen = {c.kind.name for c in tu.cursor.get_children()}
    return {
        "libclang_tokens": len(spelled),
        "libclang_tokens_have_macros": any(
            s in ("MAD", "IDX2", "MWG", "TAPS", "REAL") for s in spelled),
        "libclang_tokens_have_directives": "define" in spelled,
        "libclang_macro_expansion_cursors": "MACRO_INSTANTIATION" in kinds_seen,
    }


def _libclang():
    """(clang.cindex, an Index), or (None, None) when libclang is not installed."""
    try:
        import clang.cindex as ci
        return ci, ci.Index.create()
    except Exception as err:  # libclang not installed
        print(f"libclang unavailable: {err}")
        return None, None


def preprocess_figures(kinds: list[str], count: int) -> dict:
    include = tempfile.mkdtemp(prefix="bench-batch-size-include-")
    Path(include, HEADER_NAME).write_text(HEADER)
    out: dict = {"include_dir": include, "units": count, "kinds": {}}
    ci, index = _libclang()
    for kind in kinds:
        defines = DEFINES[kind]
        units = [macro_unit(kind) for _ in range(count + 1)]
        fig = pcpp_figures(units, include, defines)
        if index is not None:
            args = ["-x", "cl", "-cl-std=CL1.2", "-I", include,
                    *(f"-D{n}={v}" for n, v in defines.items())]
            fig.update(clang_parse_figures(index, units, args))
            fig.update(clang_token_figures(ci, index, units[0], args))
        out["kinds"][kind] = fig
        print(f"\n-- preprocessing, {kind} units (median of {count}):")
        for key, value in fig.items():
            print(f"   {key}: {value}")
    return out
