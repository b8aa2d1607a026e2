"""The archive in search: what every hit says about itself, and the notice of a time-bounded
search that left the archive out and was bounded in time or found nothing.

Archived memories are kept, never deleted; a search reaches them with scope `archive`, with
`include_archived`, with `status: archived`, and by default when it is bounded in time
(fts.make_filters). They rank below current memories of the same relevance (hybrid.py's
KIND_WEIGHT) and each hit says `status: archived`, so an assistant can tell history from a
current answer and restore what it needs by the hit's id.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..index.fulltext import Filters
from ..limits import MAX_SEARCH_LIMIT
from . import fts as ftsmod

if TYPE_CHECKING:
    from ..index.store import IndexStore

COUNT_CAP = MAX_SEARCH_LIMIT  # past this many, the notice says "at least"


def hit_fields(row: sqlite3.Row, tags: list[str]) -> dict[str, Any]:
    """status, created, last_used and tags of a hit. A memory in Archive/ is `archived`
    whatever its frontmatter says (a person may have moved it there by hand)."""
    status = "archived" if row["kind"] == "archive" else row["status"]
    return {"status": status, "created": row["created"], "last_used": row["last_used"], "tags": tags}


def left_out(store: "IndexStore", query: str, filters: Filters, found: int) -> int | None:
    """How many archived memories match the query's words within the filters, when the search
    left the archive out and was bounded in time or found nothing (`found`: its hits); None
    otherwise (nothing to report)."""
    if "archive" in filters.kinds or not (filters.timed or found == 0):
        return None
    return len(ftsmod.search(store, query, replace(filters, kinds=("archive",)), limit=COUNT_CAP))


def left_out_notice(count: int) -> str:
    many = f"at least {count}" if count >= COUNT_CAP else str(count)
    noun = "memory matches" if count == 1 else "memories match"
    return (
        f"{many} archived {noun} too; search with include_archived (CLI --include-archived) or scope "
        "archive to see them, and restore_memory (CLI restore) by id to bring one back"
    )
