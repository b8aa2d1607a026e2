"""When the sweep may leave a note's written score alone (a quiet vault: by default,
time alone rewrites a note at most once a day).

The written `decay_score` is a snapshot; everything that decides (promotion, archiving,
review, search) reads the live score from use_count, last_used and strength. A snapshot is
left alone while it is one the note really had within the last `score_refresh_hours` and
shows the same lifecycle state as the live score. No write time is stored: the score
decreases with time, so "written within the window" is "the written value lies between the
live score and the score at the window's start". That reads only the file's own keys, so it
survives a rebuild of the index, and a use (score up) or an edited input shows as a written
value outside that range.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from .dates import parse_datetime
from .due import due_dates
from .scoring import ScoringParams, decide, priority_at, score_at, state_of


def state_at(p: ScoringParams, value: float, use_count: int, age_s: float | None) -> str:
    decision, _ = decide(p, value, use_count, age_s)
    return state_of(p, value, decision)


def written_is_current(
    p: ScoringParams, row: Any, last: datetime, exact: float, now: datetime, prec: int, refresh_s: float
) -> bool:
    """True: the written score may stay (refresh window, same state); False: rewrite it.

    `row` carries the index's reading of the file (decay_score, use_count, strength, created)."""
    written = row["decay_score"]
    if written is None or refresh_s <= 0:
        return False
    low = round(exact, prec)
    start = now - timedelta(seconds=refresh_s)
    high = round(score_at(p, row["use_count"], last, row["strength"], start, bool(row["pinned"])), prec)
    if not low <= round(written, prec) <= high:
        return False  # used, inputs edited, or older than the window
    created = parse_datetime(row["created"])
    age = (now - created).total_seconds() if created else None
    return state_at(p, written, row["use_count"], age) == state_at(p, exact, row["use_count"], age)


def left_alone(p: ScoringParams, row: Any, last: datetime, now: datetime, prec: int, refresh_s: float) -> bool:
    """Whether the sweep at `now` leaves this note's file as it is (the index's reading of it)."""
    if row["id"] is None:
        return False  # it gets an id
    pinned = bool(row["pinned"])
    exact = score_at(p, row["use_count"], last, row["strength"], now, pinned)
    value = round(exact, prec)
    if (
        row["decay_score"] is not None
        and round(row["decay_score"], prec) == value
        and row["review_priority"] is not None
        and round(row["review_priority"], prec) == round(priority_at(p, exact, pinned), prec)
    ):
        return True
    return written_is_current(p, row, last, exact, now, prec, refresh_s)


def due_fields(
    p: ScoringParams, use_count: int, strength: float, last_used: datetime, pinned: bool = False
) -> dict[str, date | None]:
    """review_on / archive_on for these inputs (None: it never gets there, as a pinned memory never does)."""
    if pinned:
        return {"review_on": None, "archive_on": None}
    return due_dates(p, use_count, strength, last_used)


def older_than_window(p: ScoringParams, row: Any, now: datetime, prec: int, refresh_s: float) -> bool:
    """Whether the written score was written before the refresh window began (or is missing):
    what `status` counts. Such a score is rewritten by the next sweep."""
    last = parse_datetime(row["last_used"] or row["created"])
    if last is None:
        return False
    if row["decay_score"] is None:
        return True
    start = now - timedelta(seconds=refresh_s)
    return bool(
        round(row["decay_score"], prec)
        > round(score_at(p, row["use_count"], last, row["strength"], start, bool(row["pinned"])), prec)
    )
