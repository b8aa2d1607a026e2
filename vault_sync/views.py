"""Plain-dict views of indexed notes, shared by every front end."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from .dates import parse_datetime
from .scoring import Decision, ScoringParams, decide, priority_at, score_at, state_of


def row_score(params: ScoringParams, row: sqlite3.Row, now: datetime) -> float | None:
    """The score of an indexed memory right now (None for a person's note); a pinned one's
    does not fall with time (scoring.score_at)."""
    if row["kind"] == "note":
        return None
    last = parse_datetime(row["last_used"]) or parse_datetime(row["created"])
    strength = row["strength"] if row["strength"] is not None else 1.0
    return score_at(params, row["use_count"] or 0, last, strength, now, bool(row["pinned"]))


def row_decision(params: ScoringParams, row: sqlite3.Row, now: datetime) -> tuple[Decision, str, float | None]:
    """(decision, reason, score) for an STM memory; other kinds are 'keep'."""
    value = row_score(params, row, now)
    if value is None or row["kind"] != "stm":
        return "keep", "", value
    created = parse_datetime(row["created"])
    age = (now - created).total_seconds() if created else None
    decision, reason = decide(params, value, row["use_count"] or 0, age)
    return decision, reason, value


def row_state(params: ScoringParams, row: sqlite3.Row, now: datetime) -> str:
    if row["kind"] == "note":
        return "note"
    if row["kind"] == "ltm" or row["status"] == "promoted":
        return "promoted"
    if row["kind"] == "archive" or row["status"] == "archived":
        return "archived"
    decision, _, value = row_decision(params, row, now)
    if value is None:
        return "note"
    if row["pinned"]:
        return "pinned"  # never reviewed, archived or promoted on its own: none of those states is its
    return state_of(params, value, decision)


def note_view(
    params: ScoringParams, row: sqlite3.Row, tags: list[str], problems: list[str], now: datetime
) -> dict[str, Any]:
    value = row_score(params, row, now)
    return {
        "path": row["path"],
        "id": row["id"],
        "kind": row["kind"],
        "title": row["title"],
        "status": row["status"],
        "tags": tags,
        "use_count": row["use_count"],
        "strength": row["strength"],
        "last_used": row["last_used"],
        "created": row["created"],
        "decay_score": row["decay_score"],
        "score": round(value, 6) if value is not None else None,
        "review_priority": round(priority_at(params, value, bool(row["pinned"])), 6)
        if value is not None and row["kind"] == "stm"
        else 0.0,
        "state": row_state(params, row, now),
        "pinned": bool(row["pinned"]),
        "project": row["project"],
        "problems": problems,
    }
