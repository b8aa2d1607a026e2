"""Memories related to a note, for the plugin's side panel: with embeddings on, the closest
memories in meaning (cosine over the vector cache; vectors still missing are made first, so
this writes and runs under the write lock); with them off, memories sharing the note's tags,
else a full-text search on its title, and `notice` says which. Never the LTM Index note (a
list of links to everything, not a memory of its own), a replaced fact, or another
project's memory."""

from __future__ import annotations

import sqlite3
from typing import Any

from .. import lookups
from ..engine import Engine
from ..errors import InvalidInput
from ..index import queries
from ..lookups import not_current
from ..projects import EVERYTHING, ProjectScope
from ..search import embeddings
from ..search.hybrid import checked

MEMORY_KINDS = ("stm", "ltm")


def related(engine: Engine, path: str, limit: int = 10) -> dict[str, Any]:
    if not 1 <= limit <= 100:
        raise InvalidInput("limit must be from 1 to 100")
    row = lookups.resolve(engine, path)
    # a project's memory is related to its project's and shared ones; a shared one to any
    scope = ProjectScope(row["project"]) if row["project"] else EVERYTHING
    superseded = set(not_current(engine))  # a replaced fact is never offered as related
    if scope.narrows:  # nor another project's memory (left out the same way)
        superseded |= queries.paths_outside(engine.store, scope)
    wanted = limit + len(superseded) + 1  # the index note may be among the hits
    hits = _semantic(engine, row, wanted)
    if hits is not None:
        return {"items": _items(engine, hits, superseded, limit), "method": "semantic", "notice": None}
    hits = _by_tags(engine, row, wanted)
    if hits:
        return {
            "items": _items(engine, hits, superseded, limit),
            "method": "tags",
            "notice": "Embeddings are off: memories sharing this note's tags.",
        }
    return {
        "items": _items(engine, _by_text(engine, row, limit), superseded, limit),
        "method": "text",
        "notice": "Embeddings are off: memories matching this note's title.",
    }


def _items(engine: Engine, hits: list[tuple[Any, float]], superseded: set[str], limit: int) -> list[dict[str, Any]]:
    out = []
    left_out = superseded | {engine.layout.index_note}
    for hit, similarity in [h for h in hits if h[0]["path"] not in left_out][:limit]:
        view = lookups.view(engine, hit)
        out.append(
            {
                "path": view["path"],
                "id": view.get("id"),
                "title": view.get("title"),
                "score": view.get("score"),
                "state": view.get("state"),
                "similarity": round(float(similarity), 4),
                "project": view.get("project"),
            }
        )
    return out


def _semantic(engine: Engine, row: sqlite3.Row, limit: int) -> list[tuple[Any, float]] | None:
    """None when embeddings are off or unavailable (the caller falls back)."""
    embedder = embeddings.get_embedder(engine)
    if embedder is None:
        return None
    try:
        embeddings.inline_backfill(engine, embedder)
        cache = embeddings.vector_cache(engine, embedder)
        vecs = cache.vectors_for([row["content_hash"]])
    except embeddings.EmbeddingUnavailable:
        return None
    if vecs is None:
        return None
    rowids, sims = cache.similarities(vecs[0], MEMORY_KINDS)
    out: list[tuple[Any, float]] = []
    for i in sorted(range(len(sims)), key=lambda i: -float(sims[i])):
        if len(out) >= limit or float(sims[i]) <= 0:
            break
        if int(rowids[i]) == row["rowid"]:
            continue
        hit = queries.note_by_rowid(engine.store, int(rowids[i]))
        if hit is not None and hit["content_hash"] != row["content_hash"]:
            out.append((hit, float(sims[i])))
    return out


def _by_tags(engine: Engine, row: sqlite3.Row, limit: int) -> list[tuple[Any, float]]:
    mine = engine.store.tags_of(row["rowid"])
    if not mine:
        return []
    rows = queries.memories_sharing_tags(engine.store, mine, row["rowid"], limit)
    return [(r, r["shared"] / len(mine)) for r in rows]


def _by_text(engine: Engine, row: sqlite3.Row, limit: int) -> list[tuple[Any, float]]:
    title = (row["title"] or "").strip()
    if not title:
        return []
    found = checked(engine, title, limit + 1, scope="all", project=row["project"], all_projects=not row["project"])
    results = found.get("results", []) if isinstance(found, dict) else found
    out: list[tuple[Any, float]] = []
    for r in results:
        if r["path"] == row["path"]:
            continue
        hit = engine.store.note(r["path"])
        if hit is not None and hit["kind"] in MEMORY_KINDS and len(out) < limit:
            out.append((hit, float(r.get("score") or 0)))
    return out
