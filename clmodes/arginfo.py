"""A kernel argument's declared name, type and kind, as the store and bundles keep it.

Persisted as one JSON row per argument, `[name, type_name, pointer]` with a fourth
element `false` when the type is a typedef clmodes could not resolve. The rows are read
back from a store or a bundle, hostile data: a row list that is not exactly this shape is
refused as a whole (`MalformedArgInfo`), never read as a shorter list, since a launch
indexes it by argument position and a short list once ended every later run in an
`IndexError`.
"""

from __future__ import annotations

import dataclasses

MAX_ARGS = 4096  # far above any device's parameter limit
MAX_TEXT = 1024  # characters of a name or a type name


class MalformedArgInfo(ValueError):
    """Argument info that is not what clmodes writes (the message says how)."""


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    name: str
    type_name: str
    pointer: bool
    resolved: bool = True  # False: a typedef clmodes could not resolve

    def as_row(self) -> list[object]:
        return [self.name, self.type_name, self.pointer] + ([] if self.resolved else [False])

    @classmethod
    def from_rows(cls, rows: object) -> list["ArgInfo"] | None:
        """Argument info read back: None where none was kept, else one `ArgInfo` per
        row; anything else raises `MalformedArgInfo`."""
        if rows is None:
            return None
        problem = rows_problem(rows)
        if problem is not None:
            raise MalformedArgInfo(problem)
        assert isinstance(rows, list)
        return [cls(r[0], r[1], r[2], r[3] if len(r) == 4 else True) for r in rows]


def rows_problem(rows: object) -> str | None:
    """Why `rows` is not argument info as clmodes writes it (None: it is, or none kept).
    clmodes keeps no info (None) for a kernel without arguments, never `[]`."""
    if rows is None:
        return None
    if not isinstance(rows, list) or not 0 < len(rows) <= MAX_ARGS:
        return f"not a list of 1 to {MAX_ARGS} argument rows"
    for index, row in enumerate(rows):
        problem = row_problem(row)
        if problem is not None:
            return f"argument {index}: {problem}"
    return None


def row_problem(row: object) -> str | None:
    if not isinstance(row, list) or len(row) not in (3, 4):
        return "not a row of [name, type, pointer(, resolved)]"
    name, type_name, pointer, *resolved = row
    if not isinstance(name, str) or not isinstance(type_name, str):
        return "its name and type are not strings"
    if len(name) > MAX_TEXT or len(type_name) > MAX_TEXT or not type_name.strip():
        return "its name or type is empty or too long"
    if type(pointer) is not bool or any(type(r) is not bool for r in resolved):
        return "its pointer and resolved flags are not true/false"
    return None


def count_problem(infos: list[ArgInfo] | None, counts: set[int]) -> str | None:
    """Why `infos` cannot describe its kernel, which takes one of `counts` arguments (the
    entry points its name may have; none known: nothing to say)."""
    if infos is not None and counts and len(infos) not in counts:
        taken = " or ".join(str(c) for c in sorted(counts))
        return f"{len(infos)} argument rows for a kernel of {taken} arguments"
    return None
