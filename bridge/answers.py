"""An operation's result as the front ends send it: plain, finite, strict JSON values.

Standard library only: the daemon's early save server (early_server.py) answers with it
before pydantic and the argument models are loaded."""

from __future__ import annotations

import json
import math
from typing import Any


def plain(result: Any) -> Any:
    return result.to_dict() if hasattr(result, "to_dict") else result


def tool_answer(value: Any) -> Any:
    """An operation's result as an MCP tool sends it: plain, finite, strict JSON values."""
    return json.loads(json.dumps(finite(plain(value)), default=str, allow_nan=False))


def finite(value: Any) -> Any:
    """`value` with every non-finite float (a person's `decay_score: .inf`, an overflow) as None:
    what every front end prints or sends is strict JSON (json.dumps would write `Infinity`)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
