"""Plain-dict views of indexed notes, shared by every front end."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from .ageing import of_row
from .scoring import ScoringParams


def note_view(
    params: ScoringParams, row: sqlite3.Row, tags: list[str], problems: list[str], now: datetime
) -> dict[str, Any]:
    a = of_row(params, row, now)
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
        "score": round(a.score, 6) if a.score is not None else None,
        "review_priority": round(a.shown_priority, 6),
        "state": a.state,
        "pinned": bool(row["pinned"]),
        "project": row["project"],
        "problems": problems,
    }
