"""may_supersede: memories a new save may replace (close in meaning, not the same text).

With embeddings on, the save-time vector check (cosine >= COSINE_MIN); with them off,
full-text overlap (the IDF-weighted share of the new text's words an existing memory holds,
>= COVERAGE_MIN). Advisory: a failure here never blocks a save.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..index import queries
from .supersede import not_current

if TYPE_CHECKING:
    from ..service import MemoryService

COSINE_MIN = 0.6  # MiniLM: a changed fact about the same thing scores 0.6-0.95
COVERAGE_MIN = 0.45
MAX_LISTED = 3
HINT = ("If this memory replaces one of these (the fact changed), call supersede_memory(old=<its id>, by=<the new id>), "
        "or save with supersedes=[<its id>] next time.")


def candidates(svc: "MemoryService", body: str, title: str | None, tags: list[str]) -> list[dict[str, Any]]:
    """Existing memories (not superseded) this text may replace, closest first."""
    superseded = not_current(svc)
    try:
        if svc.embedder_now() is not None:  # the model when at hand; words while it loads
            from ..search.embeddings import near_duplicates

            hits = near_duplicates(svc, body, threshold=COSINE_MIN, title=title, tags=tags)
        else:
            hits = _by_words(svc, body)
    except Exception:  # an extra: never block a save over it
        return []
    out = [{k: h[k] for k in ("id", "path", "title", "similarity")} for h in hits if h["path"] not in superseded]
    return out[:MAX_LISTED]


def _by_words(svc: "MemoryService", body: str) -> list[dict[str, Any]]:
    from ..search import fts as ftsmod

    filters = ftsmod.make_filters(svc, "memories")
    out = []
    for hit in ftsmod.search(svc.store, body, filters, limit=10):
        if hit.coverage < COVERAGE_MIN:
            continue
        row = queries.note_by_rowid(svc.store, hit.rowid)
        if row is not None:
            out.append({"id": row["id"], "path": row["path"], "title": row["title"], "similarity": round(hit.coverage, 4)})
    out.sort(key=lambda h: -h["similarity"])
    return out
