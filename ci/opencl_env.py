"""Register the OpenCL runtimes installed from PyPI and print the shell exports that do it.

    eval "$(python ci/opencl_env.py)"

PoCL and Oclgrind need nothing: pyopencl's wheel finds their ICD files in its own folder.
Intel's CPU runtime (`intel-opencl-rt`) registers only through an ICD file in a directory
named by `OCL_ICD_VENDORS` that points at `<venv>/lib/libintelocl.so`, and its libraries
resolve only with `<venv>/lib` on `LD_LIBRARY_PATH` (read when a process starts, so these
must be exported before Python runs). The ICD file the wheel ships names a build machine's
path (/opt/anaconda1anaconda2anaconda3/...), so this writes a correct one.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path


def main() -> int:
    prefix = Path(sys.prefix)
    library = prefix / "lib" / "libintelocl.so"
    if not library.exists():
        print(f"# Intel's CPU runtime is not installed in {prefix}; nothing to register",
              file=sys.stderr)
        return 0
    vendors = prefix / "etc" / "clmodes-icd"
    vendors.mkdir(parents=True, exist_ok=True)
    (vendors / "intel-cpu.icd").write_text(f"{library}\n")
    library_path = os.pathsep.join(
        p for p in [str(prefix / "lib"), os.environ.get("LD_LIBRARY_PATH", "")] if p
    )
    print(f"export OCL_ICD_VENDORS={shlex.quote(str(vendors))}")
    print(f"export LD_LIBRARY_PATH={shlex.quote(library_path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
