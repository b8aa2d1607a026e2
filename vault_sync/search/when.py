"""Time bounds for search: an ISO date/time, or a duration back from now (`7d`, `12h`, `2w`)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..dates import parse_datetime
from ..errors import InvalidInput
from ..limits import quote

_DURATION = re.compile(r"^\s*(\d{1,6}(?:\.\d+)?)\s*(m|h|d|w|y)\s*$", re.IGNORECASE)
_UNIT = {
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
    "y": timedelta(days=365),
}


def parse_when(name: str, value: object, now: datetime) -> datetime | None:
    """The instant `value` names; None when it is None. A duration counts back from `now`."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 40:
        raise InvalidInput(f"{name} must be an ISO date (2026-05-01) or a duration such as 7d; got {quote(value, 40)}")
    m = _DURATION.match(value)
    if m:
        try:
            return now - float(m.group(1)) * _UNIT[m.group(2).lower()]
        except OverflowError:  # 999999w: before the year 1
            raise InvalidInput(
                f"{name} {quote(value, 40)} reaches back before the year 1; give a shorter duration or a date"
            ) from None
    when = parse_datetime(value.strip())
    if when is None:
        raise InvalidInput(f"{name} must be an ISO date (2026-05-01) or a duration such as 7d; got {quote(value, 40)}")
    return when
