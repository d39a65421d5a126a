"""Why a store missed, on rows written as a warm on another machine would have written them."""

from __future__ import annotations

from clmodes.store import Store
from clmodes.store.misses import describe_changes
from clmodes.store.schema import FORMAT_VERSION

MODEL = "NVIDIA | NVIDIA H100 80GB HBM3 | 132CU | 80GiB | OpenCL 3.0"
EXACT = f"{MODEL} | driver 550.54 | OpenCL 3.0 CUDA 12.4.89"
NEWER = f"{MODEL} | driver 560.35 | OpenCL 3.0 CUDA 12.6.20"
OTHER = "AMD | AMD Radeon RX 7900 XTX (gfx1100) | 48CU | 24GiB | OpenCL 2.0 | driver 3614 | OpenCL 2.1 AMD-APP"


def _store_with(exact: str, key: str = "k1", name: str = "gemm") -> Store:
    store = Store(None)
    store.put_binary(exact, "batch", ["unit"], b"binary", [(key, name, None)])
    return store


def test_a_cold_store_and_another_model_and_another_driver():
    assert "holds no binaries" in Store(None).why_kernel_missed(EXACT, "k1", "gemm", {})
    assert _store_with(OTHER).why_kernel_missed(EXACT, "k1", "gemm", {}) == (
        "stored for another device model (" + OTHER.rsplit(" | ", 2)[0] + ")")
    assert _store_with(NEWER).why_kernel_missed(EXACT, "k1", "gemm", {}) == (
        "stored for another driver (driver 560.35, platform OpenCL 3.0 CUDA 12.6.20)")
    assert "no entry for this device model" in _store_with(OTHER, "k9", "axpy").why_kernel_missed(
        EXACT, "k1", "gemm", {})


def test_a_namesake_names_what_changed():
    store = _store_with(EXACT, "old")
    store.put_kernel_identities(EXACT, [("old", "gemm", {"source": "a", "defines": {"N": "4"},
                                                          "options": [], "includes": None})])
    now = {"source": "a", "defines": {"N": "8", "M": "2"}, "options": [], "includes": "h"}
    why = store.why_kernel_missed(EXACT, "new", "gemm", now)
    assert why == ("no binary of it as it is now; the stored 'gemm' differs in "
                   "define M (unset -> 2); define N (4 -> 8); a file it includes")


def test_describe_changes_names_source_and_options():
    assert describe_changes({"source": "a", "options": []}, {"source": "b", "options": ["-O2"]}) == (
        "its source text (a -> b); build options (none -> -O2)")


def test_another_text_of_a_stored_kernel_names_both_digests():
    """A code generator's other text for one kernel (loopy orders loops by its own cache):
    the stored namesake is found and the two texts' digests named, short."""
    store = _store_with(EXACT, "old", "loopy_kernel")
    store.put_kernel_identities(EXACT, [("old", "loopy_kernel", {
        "source": "0123456789abcdef", "defines": {}, "options": [], "includes": None})])
    now = {"source": "fedcba9876543210", "defines": {}, "options": [], "includes": None}
    assert store.why_kernel_missed(EXACT, "new", "loopy_kernel", now) == (
        "no binary of it as it is now; the stored 'loopy_kernel' differs in its source text "
        "(0123456789ab -> fedcba987654)")


def test_tune_misses():
    store = Store(None)
    assert "no decision is stored" in store.why_tune_missed(MODEL, "mm", '{"n":1}', "c")
    store.put_tune_json(MODEL, "mm", '{"n":2}', "c", {"winner": "a"})
    assert store.why_tune_missed(MODEL, "mm", '{"n":1}', "c").startswith("another shape")
    assert "its candidates or space changed" in store.why_tune_missed(MODEL, "mm", '{"n":2}', "d")
    assert "no decision for this device model" in store.why_tune_missed("Intel | x", "mm", '{"n":2}', "c")
    store.write("UPDATE tune SET format=?", (FORMAT_VERSION + 1,))
    assert "another clmodes store format" in store.why_tune_missed(MODEL, "mm", '{"n":2}', "c")
