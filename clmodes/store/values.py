"""A JSON object stored in a TEXT column, read as hostile data: anything else is None."""

from __future__ import annotations

import json
from typing import Any


def json_object(value: object) -> dict[str, Any] | None:
    """The object `value` (a column's text) holds, or None if it is not text, not JSON, or
    not an object: a caller treats None as a miss and says so once."""
    if not isinstance(value, str):
        return None
    try:
        found = json.loads(value)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None
