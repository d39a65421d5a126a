"""A tune key as canonical JSON: what the store keys a decision by, so two calls with
equal sizes share one decision whatever order their mapping was built in."""

from __future__ import annotations

import json

_KEY_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # one, not one per call


def canonical_key(value: object, owner: str = "a tunable") -> str:
    """The key as canonical JSON. Mapping keys must be strings: JSON turns `{1: n}` into
    `{"1": n}`, and two different keys would then share one tune entry."""
    _refuse_non_string_keys(value, owner)
    try:
        return _KEY_ENCODER.encode(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{owner}: a tune key must be JSON-able: {error}") from error


def _refuse_non_string_keys(value: object, owner: str) -> None:
    if isinstance(value, dict):
        for name, item in value.items():
            if not isinstance(name, str):
                raise TypeError(f"{owner}: tune key mappings need string keys, not {name!r} "
                                f"({type(name).__name__}): JSON would turn it into {str(name)!r}")
            _refuse_non_string_keys(item, owner)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _refuse_non_string_keys(item, owner)
