"""Intel GPU families `ocloc` compiles for, and the PCI device IDs that belong to each.

Why a table of our own: a binary built offline for a family is offered to a real device
only if that device is of the family, and the machine that uses the bundle has no
`ocloc` to ask. The device IDs are Intel's compute-runtime's own lists
(shared/source/dll/devices/devices_base.inl; DG2's split into G10, G11 and G12 from
shared/source/xe_hpg_core/dg2/device_ids_configs_dg2*.h). An ID missing here only costs a
miss (the device builds from source); an ID in the wrong family would be caught by the
driver refusing the binary (`clmodes.programs.load`: one warning, a source build).

`name` is what `clmodes warm --target intel-gpu:NAME` takes and what `ocloc -device`
takes; `core` is the GFX core number the driver checks in the binary's header (18:
Gen12LP, 3079: Xe-HPG, 3080: Xe-HPC), which the tests read back from each binary.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Family:
    """One `ocloc -device` target and the devices it builds for."""

    name: str
    title: str  # what a person calls it
    core: int  # the binary header's `Device` field (IGFX core family)
    device_ids: frozenset[int]

    def __contains__(self, device_id: object) -> bool:
        return device_id in self.device_ids


def _ids(*ids: int) -> frozenset[int]:
    return frozenset(ids)


GEN12LP, XE_HPG, XE_HPC = 18, 3079, 3080

FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("tgllp", "Tiger Lake (Gen12LP)", GEN12LP,
           _ids(0x9A49, 0x9A40, 0x9A59, 0x9A60, 0x9A68, 0x9A70, 0x9A78)),
    Family("rkl", "Rocket Lake (Gen12LP)", GEN12LP,
           _ids(0x4C80, 0x4C8A, 0x4C8B, 0x4C8C, 0x4C90, 0x4C9A)),
    Family("adl-s", "Alder Lake-S (Gen12LP)", GEN12LP,
           _ids(0x4680, 0x4682, 0x4688, 0x468A, 0x468B, 0x4690, 0x4692, 0x4693, 0xA780,
                0xA781, 0xA782, 0xA783, 0xA788, 0xA789, 0xA78A, 0xA78B)),
    Family("adl-p", "Alder Lake-P and Raptor Lake-P (Gen12LP)", GEN12LP,
           _ids(0x46A0, 0x46B0, 0x46A1, 0x46A3, 0x46A6, 0x46A8, 0x46AA, 0x462A, 0x4626,
                0x4628, 0x46B1, 0x46B3, 0x46C0, 0x46C1, 0x46C3, 0xA7A0, 0xA720, 0xA7A8,
                0xA7A1, 0xA721, 0xA7A9, 0xA7AA, 0xA7AB, 0xA7AC, 0xA7AD)),
    Family("adl-n", "Alder Lake-N (Gen12LP)", GEN12LP,
           _ids(0x46D0, 0x46D1, 0x46D2, 0x46D3, 0x46D4)),
    Family("dg1", "Iris Xe MAX, DG1 (Gen12LP)", GEN12LP,
           _ids(0x4905, 0x4906, 0x4907, 0x4908, 0x4909)),
    Family("acm-g10", "Arc A770/A750/A580, Flex 170 (DG2-G10, Xe-HPG)", XE_HPG,
           _ids(0x4F80, 0x4F81, 0x4F82, 0x4F83, 0x4F84, 0x5690, 0x5691, 0x5692, 0x56A0,
                0x56A1, 0x56A2, 0x56BE, 0x56BF, 0x56C0, 0x56C2)),
    Family("acm-g11", "Arc A380/A310, Flex 140 (DG2-G11, Xe-HPG)", XE_HPG,
           _ids(0x4F87, 0x4F88, 0x5693, 0x5694, 0x5695, 0x56A5, 0x56A6, 0x56B0, 0x56B1,
                0x56BA, 0x56BB, 0x56BC, 0x56BD, 0x56C1)),
    Family("acm-g12", "Arc A570M/A530M (DG2-G12, Xe-HPG)", XE_HPG,
           _ids(0x5696, 0x5697, 0x56A3, 0x56A4, 0x56B2, 0x56B3, 0x4F85, 0x4F86)),
    Family("pvc", "Data Center GPU Max (Xe-HPC)", XE_HPC,
           _ids(0x0BD0, 0x0BD5, 0x0BD6, 0x0BD7, 0x0BD8, 0x0BD9, 0x0BDA, 0x0BDB, 0x0B69,
                0x0B6E, 0x0BD4)),
)}


def family_named(name: str) -> Family:
    """The family `name` names; `KeyError` with the names known otherwise."""
    found = FAMILIES.get(name.strip().lower())
    if found is None:
        raise KeyError(f"unknown Intel GPU family {name!r}; known: {', '.join(FAMILIES)}")
    return found


def family_of(device_id: int) -> Family | None:
    """The family a PCI device ID belongs to, if this table knows it."""
    return next((f for f in FAMILIES.values() if device_id in f), None)
