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

from datetime import datetime, timedelta
from typing import Any

from .ageing import Ageing, Facts, age, score_state
from .dates import parse_datetime
from .scoring import ScoringParams


def _facts(row: Any, last: datetime) -> Facts:
    """The index's reading of a swept note, ageing from `last` (its last use, else creation)."""
    return Facts(row["use_count"], row["strength"], last, pinned=bool(row["pinned"]))


def written_is_current(
    p: ScoringParams, row: Any, last: datetime, exact: float, now: datetime, prec: int, refresh_s: float
) -> bool:
    """True: the written score may stay (refresh window, same state); False: rewrite it.

    `row` carries the index's reading of the file (decay_score, use_count, strength, created)."""
    written = row["decay_score"]
    if written is None or refresh_s <= 0:
        return False
    low = round(exact, prec)
    high = round(_score(age(p, _facts(row, last), now - timedelta(seconds=refresh_s))), prec)
    if not low <= round(written, prec) <= high:
        return False  # used, inputs edited, or older than the window
    created = parse_datetime(row["created"])
    age_s = (now - created).total_seconds() if created else None
    return score_state(p, written, row["use_count"], age_s) == score_state(p, exact, row["use_count"], age_s)


def _score(a: Ageing) -> float:
    assert a.score is not None  # a swept note is a memory: it has one
    return a.score


def same_as_written(row: Any, a: Ageing, prec: int) -> bool:
    """Whether the note already carries this ageing's score and review priority."""
    return (
        row["decay_score"] is not None
        and round(row["decay_score"], prec) == round(_score(a), prec)
        and row["review_priority"] is not None
        and round(row["review_priority"], prec) == round(a.review_priority, prec)
    )


def left_alone(p: ScoringParams, row: Any, last: datetime, now: datetime, prec: int, refresh_s: float) -> bool:
    """Whether the sweep at `now` leaves this note's file as it is (the index's reading of it)."""
    if row["id"] is None:
        return False  # it gets an id
    a = age(p, _facts(row, last), now)
    return same_as_written(row, a, prec) or written_is_current(p, row, last, _score(a), now, prec, refresh_s)


def older_than_window(p: ScoringParams, row: Any, now: datetime, prec: int, refresh_s: float) -> bool:
    """Whether the written score was written before the refresh window began (or is missing):
    what `status` counts. Such a score is rewritten by the next sweep."""
    last = parse_datetime(row["last_used"] or row["created"])
    if last is None:
        return False
    if row["decay_score"] is None:
        return True
    start = now - timedelta(seconds=refresh_s)
    return bool(round(row["decay_score"], prec) > round(_score(age(p, _facts(row, last), start)), prec))
