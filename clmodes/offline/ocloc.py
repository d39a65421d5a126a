"""Running Intel's offline compiler, `ocloc`, on one batch's prepared source.

`ocloc` (Debian's `intel-opencl-icd`) compiles OpenCL C for any Intel GPU family without
the GPU, with the same compilers (IGC, opencl-clang) Intel's GPU driver builds with; its
output is what the driver itself returns as CL_PROGRAM_BINARIES and takes back through
clCreateProgramWithBinary (an ELF holding the SPIR-V and the device binary).

Each compile runs in a private temporary folder (`ocloc` writes its outputs next to
names it derives from the input); its version is `ocloc query OCL_DRIVER_VERSION`, the
driver release it ships with, which is what a device's driver version is matched against
(`clmodes.offline.fit`).
"""

from __future__ import annotations


import shutil
import subprocess
import tempfile
from pathlib import Path

from clmodes import settings
from clmodes.errors import ClmodesError
from clmodes.offline.families import Family

OCLOC_ENV = settings.OCLOC.name  # another ocloc than the one on PATH
PACKAGES = ("intel-opencl-icd (it brings libigc1 libigdfcl1 libigdgmm12 libopencl-clang14 "
            "libllvmspirvlib14)")
MISSING = (f"ocloc, Intel's offline GPU compiler, is not installed: on Debian "
           f"`apt-get install --no-install-recommends {PACKAGES}`")
TIMEOUT_S = 300.0  # one batch for one family; the MLP's biggest takes about 1 s


class OclocMissingError(ClmodesError):
    """No `ocloc` here: the one line names the Debian packages."""


class OfflineBuildError(ClmodesError):
    """`ocloc` refused a batch: the message says why in one line; `log` is its output."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


def find() -> str:
    """The `ocloc` to run: `$CLMODES_OCLOC`, else the one on PATH."""
    chosen = settings.OCLOC.get() or ""
    found = shutil.which(chosen or "ocloc")
    if found is None:
        where = f" (${OCLOC_ENV}={chosen} is not an executable)" if chosen else ""
        raise OclocMissingError(MISSING + where)
    return found


def version(ocloc: str) -> str:
    """The driver release this `ocloc` belongs to (`22.43.24595`)."""
    with tempfile.TemporaryDirectory(prefix="clmodes-ocloc-") as folder:
        _run([ocloc, "query", "OCL_DRIVER_VERSION"], Path(folder), "ocloc query")
        answer = Path(folder) / "OCL_DRIVER_VERSION"
        text = answer.read_text(errors="replace").replace("\0", " ").strip() if answer.is_file() else ""
    if not text or not text[0].isdigit():
        raise OfflineBuildError(f"{ocloc} query OCL_DRIVER_VERSION gave no version ({text[:60]!r})")
    return text.split()[0]


def compile_source(ocloc: str, source: str, options: list[str], family: Family) -> bytes:
    """The binary of `source` built with `options` for `family`."""
    with tempfile.TemporaryDirectory(prefix="clmodes-ocloc-") as folder:
        here = Path(folder)
        (here / "batch.cl").write_text(source)
        command = [ocloc, "compile", "-file", "batch.cl", "-device", family.name,
                   "-output", "batch", "-output_no_suffix", "-out_dir", "out"]
        if options:
            command += ["-options", " ".join(options)]
        _run(command, here, f"ocloc for {family.name}")
        produced = here / "out" / "batch"
        if not produced.is_file():
            raise OfflineBuildError(f"ocloc for {family.name} wrote no binary")
        return produced.read_bytes()


def _run(command: list[str], folder: Path, what: str) -> None:
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True,
                              errors="replace", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise OfflineBuildError(f"{what} ran past {TIMEOUT_S:g} s") from None
    except OSError as error:
        raise OclocMissingError(f"{MISSING} ({command[0]}: {error.strerror})") from None
    if done.returncode != 0:
        output = done.stdout + done.stderr
        raise OfflineBuildError(f"{what} failed (status {done.returncode}): {first_error(output)}", output)


def first_error(output: str) -> str:
    """The compiler's first error line (what a person needs), else its output's start."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return " ".join((errors or lines or ["(no output)"])[0].split())[:300]
