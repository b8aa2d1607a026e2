"""Reading the dates Obsidian and people write; writing one unambiguous form."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timezone

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_datetime(value: object) -> datetime | None:
    """A timezone-aware datetime, or None when the value is not a date.

    Naive values mean the device's local time, as Obsidian writes them.
    """
    try:
        return _parse(value)
    except (ValueError, OverflowError, OSError):  # e.g. year 1 or 9999 shifted out of range
        return None


def _aware(value: datetime) -> datetime:
    if value.tzinfo is not None:
        return value
    try:
        return value.astimezone()  # the device's local zone
    except (ValueError, OverflowError, OSError):  # outside what the OS can convert
        return value.replace(tzinfo=timezone.utc)


def _parse(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return _aware(value)
    if isinstance(value, date):
        return _aware(datetime.combine(value, time()))
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    if _DATE_ONLY.match(text):
        try:
            return _aware(datetime.combine(date.fromisoformat(text), time()))
        except ValueError:
            return None
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = text.replace(" ", "T", 1) if "T" not in text else text
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return _aware(parsed)


def format_datetime(value: datetime) -> str:
    """YYYY-MM-DDTHH:MM:SSZ in UTC: the same instant on every device.

    (A date at the very edge of the calendar that cannot be shifted to UTC keeps its own
    offset, written as +HH:MM.)
    """
    value = _aware(value).replace(microsecond=0)
    try:
        utc = value.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return value.isoformat()
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class MovableClock:
    """A clock the caller sets by hand (`clock.at = ...`, e.g. the benchmark's sweeps a day
    apart); the real time until then. Passed to MemoryService(clock=...)."""

    def __init__(self, at: datetime | None = None):
        self.at = at

    def __call__(self) -> datetime:
        return self.at if self.at is not None else utc_now()
