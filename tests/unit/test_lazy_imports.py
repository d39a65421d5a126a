"""`import clmodes` loads what a warmed process needs and nothing that only a source build
needs: the preprocessor (pcpp) and the batch machinery load on the first build."""

from __future__ import annotations

import json
import subprocess
import sys

BUILD_ONLY = ("pcpp", "clmodes.batch.preprocess", "clmodes.batch.unit", "clmodes.batch.program")


def loaded_after(statement: str) -> set[str]:
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_import_clmodes_loads_no_build_machinery() -> None:
    loaded = loaded_after("import clmodes")
    assert not loaded & set(BUILD_ONLY), sorted(loaded & set(BUILD_ONLY))


def test_the_batch_package_still_offers_its_names() -> None:
    loaded = loaded_after("from clmodes.batch import Unit, plan, DeviceTraits")
    assert {"clmodes.batch.unit", "clmodes.batch.program", "clmodes.batch.predefined"} <= loaded


def test_import_clmodes_loads_no_tuning_probing_or_warming() -> None:
    """A process running a pyopencl program or loading warmed kernels needs none of them."""
    loaded = loaded_after("import clmodes")
    assert not {m for m in loaded if m.startswith(("clmodes.tune", "clmodes.probing", "clmodes.warming"))}


def test_their_public_names_resolve_on_first_use() -> None:
    loaded = loaded_after("import clmodes\nassert clmodes.Tunable.__name__ == 'Tunable'\n"
                          "from clmodes import warm, probe, roofline_fraction, LocalSearch")
    assert {"clmodes.tune.tunable", "clmodes.warming", "clmodes.probing", "clmodes.roofline"} <= loaded
