"""Paged listings: every answer a front end gives an assistant is one page with a total,
so a vault of thousands of memories never answers with all of them at once."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .. import lookups
from ..ageing import of_row
from ..dates import format_datetime, parse_datetime
from ..engine import Engine
from ..errors import InvalidInput
from ..index import queries
from ..limits import MAX_LIMIT, check_limit, page
from ..lookups import not_current
from ..projects import EVERYTHING, ProjectScope
from .lifecycle import review_rows

MAX_OFFSET = 10_000_000
_OLDEST = datetime.min.replace(tzinfo=timezone.utc)


def check_offset(offset: Any) -> int:
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
        raise InvalidInput(f"offset must be a whole number from 0 to {MAX_OFFSET}")
    return offset


def review_page(engine: Engine, limit: int = 20, offset: int = 0, scope: ProjectScope = EVERYTHING) -> dict[str, Any]:
    """The review queue of `scope`, most urgent first, one page of it."""
    limit, offset = check_limit(limit), check_offset(offset)
    rows = review_rows(engine, scope)
    out = page(rows, offset, limit)
    out["items"] = [lookups.view(engine, row) for row in out["items"]]
    out.update(scope.describe())
    return out


def next_review_due(engine: Engine) -> str | None:
    """When the next memory above the danger zone enters it if left unused (an empty queue
    says when there will be something to review); None when no memory is on its way there."""
    p, now = engine.params, engine.now()
    superseded = not_current(engine)  # never reviewed (review_rows): not due either
    best: datetime | None = None
    for row in queries.stm_rows(engine.store):
        at = of_row(p, row, now, row["path"] in superseded).enters_review_at
        if at is not None and (best is None or at < best):
            best = at
    return None if best is None else format_datetime(best)


_KINDS = {
    "memories": ("stm", "ltm"),
    "stm": ("stm",),
    "ltm": ("ltm",),
    "archive": ("archive",),
    "all": ("stm", "ltm", "archive"),
}


def recent(
    engine: Engine,
    limit: int = 20,
    offset: int = 0,
    since: str | None = None,
    scope: str = "memories",
    projects: ProjectScope = EVERYTHING,
) -> dict[str, Any]:
    """Memories of `projects` newest first (by `created`), without a query: "what did I say last week".
    `since` (an ISO date or a duration such as 7d) keeps those created at or after it."""
    from ..search.when import parse_when

    limit, offset = check_limit(limit, MAX_LIMIT), check_offset(offset)
    kinds = _KINDS.get(scope) if isinstance(scope, str) else None
    if kinds is None:
        raise InvalidInput(f"scope must be one of {', '.join(_KINDS)}")
    floor = parse_when("since", since, engine.now())
    rows = queries.rows_of_kinds(engine.store, kinds)
    dated = []
    for row in rows:
        created = parse_datetime(row["created"]) if row["created"] else None
        if floor is not None and (created is None or created < floor) or not projects.admits(row["project"]):
            continue
        dated.append((created or _OLDEST, row["path"], row))
    dated.sort(key=lambda t: (t[0], t[1]), reverse=True)
    out = page([row for _, _, row in dated], offset, limit)
    out["items"] = [lookups.view(engine, row) for row in out["items"]]
    out.update(projects.describe())
    return out


SEARCH_WINDOW = 200  # search ranks at most this many hits (limits.MAX_SEARCH_LIMIT)


def search_page(engine: Engine, query: str, limit: int = 10, offset: int = 0, **filters: Any) -> dict[str, Any]:
    """One page of a search. The first page is the engine's ranking for `limit`; a later page
    is what the ranking of offset+limit adds to the ranking of offset (a ranking depends on its
    size: a plain slice of two rankings could repeat or skip a hit between pages)."""
    offset = check_offset(offset)
    limit = check_limit(limit, SEARCH_WINDOW)
    if offset + limit > SEARCH_WINDOW:
        raise InvalidInput(
            f"search ranks the best {SEARCH_WINDOW} results; offset + limit must be at most {SEARCH_WINDOW}"
        )
    from ..search.hybrid import checked

    result = checked(engine, query, offset + limit, **filters)
    hits = result.get("results", [])
    if offset:
        seen = {h["path"] for h in checked(engine, query, offset, **filters).get("results", [])}
        hits = [h for h in hits if h["path"] not in seen]
    result["results"] = hits[:limit]
    # what the ranking matched, up to the window: at least this many hits can be paged through
    # (a ranking for a larger page looks at more candidates, so a later page may count more)
    matches = result.pop("matches", 0)
    result["total"] = min(SEARCH_WINDOW, max(matches, offset + len(result["results"])))
    result["offset"] = offset
    result["next_offset"] = offset + limit if len(hits) >= limit and offset + limit < SEARCH_WINDOW else None
    return result
