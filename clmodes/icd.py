"""Registering the OpenCL runtimes installed from PyPI with the ICD loader, before it starts.

PoCL and Oclgrind from PyPI need nothing: pyopencl's wheel bundles an ICD loader that
always adds the ICD files in its own folder. Intel's CPU runtime (`intel-opencl-rt`)
registers only through an ICD file naming `<prefix>/lib/libintelocl.so` in the folder the
loader scans, and the one its wheel ships names its build machine's path
(`/opt/anaconda1anaconda2anaconda3/...`), so `pip install clmodes[intel]` alone showed
no Intel device.

What is done, and why this way: when the user has not chosen the loader's folder
(`OCL_ICD_VENDORS` unset), a folder of clmodes' own is written holding a link to every
ICD file of the system folder (`/etc/OpenCL/vendors`: what the user registered, kept as
it is) plus one correct file for Intel's runtime, and `OCL_ICD_VENDORS` is pointed at it.
The loader reads that variable once, at the first OpenCL call of the process, so this
runs before clmodes lists platforms and before a program under `clmodes run` starts
(`clmodes.running.adopting`: that program's first OpenCL call may be the process's);
a process that called OpenCL before importing clmodes keeps what it had. A user who set `OCL_ICD_VENDORS` has chosen exactly what is
registered: clmodes leaves it alone (`clmodes devices` says how to add Intel's runtime).
`CLMODES_REGISTER_RUNTIMES=0` turns it off. The variable is inherited, so the workload
processes clmodes starts see the same devices.

Intel's runtime resolves its own libraries through its RUNPATH (`$ORIGIN`), so no
`LD_LIBRARY_PATH` is needed.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile
import threading
from pathlib import Path

from clmodes import settings

log = logging.getLogger("clmodes")

SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")
INTEL_LIBRARY = "libintelocl.so"
ICD_NAME = "clmodes-intel-cpu.icd"

_done = False
_lock = threading.Lock()


def intel_library(prefix: Path | None = None) -> Path | None:
    """Intel's CPU runtime installed from PyPI in this environment, if it is."""
    library = Path(sys.prefix if prefix is None else prefix) / "lib" / INTEL_LIBRARY
    return library if library.is_file() else None


def register_pypi_runtimes() -> Path | None:
    """Point the ICD loader at the system's registrations plus Intel's runtime from PyPI.
    Returns the folder used, or None when nothing was done. Idempotent."""
    global _done
    with _lock:
        if _done:
            return None
        _done = True
        library = intel_library()
        if library is None or not settings.REGISTER_RUNTIMES.get():
            return None
        if os.environ.get("OCL_ICD_VENDORS"):
            log.debug("OCL_ICD_VENDORS is set: %s is not registered by clmodes", library)
            return None
        if _registered(SYSTEM_VENDORS, library):
            return None
        folder = vendors_folder(SYSTEM_VENDORS, library)
        if folder is not None:
            os.environ["OCL_ICD_VENDORS"] = str(folder)
            log.debug("registered %s with the ICD loader through %s", library, folder)
        return folder


def _registered(vendors: Path, library: Path) -> bool:
    """Does an ICD file of `vendors` already name `library`?"""
    for icd in _icd_files(vendors):
        try:
            if Path(icd.read_text().strip()).resolve() == library.resolve():
                return True
        except (OSError, ValueError):
            continue
    return False


def _icd_files(vendors: Path) -> list[Path]:
    try:
        return sorted(p for p in vendors.iterdir() if p.suffix == ".icd")
    except OSError:
        return []


def vendors_folder(system: Path, library: Path) -> Path | None:
    """A folder with links to `system`'s ICD files and an ICD file naming `library`,
    named by what it holds (so processes of one environment share it and concurrent
    writers agree), under the temporary directory. None if it cannot be written."""
    links = _icd_files(system)
    digest = hashlib.sha256(repr((str(library), [str(p) for p in links])).encode())
    folder = Path(tempfile.gettempdir()) / f"clmodes-icd-{os.getuid()}-{digest.hexdigest()[:12]}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        _require_private(folder)
        for icd in links:
            _replace_link(folder / icd.name, icd)
        _write_atomically(folder / ICD_NAME, f"{library}\n")
    except OSError as error:
        log.warning("clmodes: cannot register %s with the ICD loader (%s): set "
                    "OCL_ICD_VENDORS to a folder holding an .icd file naming it", library, error)
        return None
    return folder


def _require_private(folder: Path) -> None:
    """The folder is ours alone: the loader loads whatever library an .icd file in it
    names, so a folder someone else made (or can write) in /tmp is refused."""
    status = folder.lstat()
    if folder.is_symlink() or status.st_uid != os.getuid() or status.st_mode & 0o022:
        raise OSError(f"{folder} is not a private folder of this user")


def _replace_link(link: Path, target: Path) -> None:
    if link.is_symlink() and os.readlink(link) == str(target):
        return
    temporary = link.with_name(f".{link.name}.{os.getpid()}")
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(target)
    os.replace(temporary, link)


def _write_atomically(path: Path, text: str) -> None:
    if path.is_file() and path.read_text() == text:
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(text)
    os.replace(temporary, path)


def unregistered_intel_hint() -> str | None:
    """What to do when Intel's runtime is installed here but the user's `OCL_ICD_VENDORS`
    does not register it (clmodes leaves a chosen folder alone); None otherwise."""
    library = intel_library()
    chosen = os.environ.get("OCL_ICD_VENDORS")
    if library is None or not chosen or Path(chosen).is_file():
        return None
    if _registered(Path(chosen), library):
        return None
    return (f"Intel's CPU runtime is installed ({library}) but OCL_ICD_VENDORS={chosen} does "
            f"not register it: add an .icd file there whose one line is {library}")
