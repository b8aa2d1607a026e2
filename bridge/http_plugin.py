"""Bridge routes for the Obsidian plugin beyond the core API: related memories, capture.

`POST /api/save {"text", "tags"}` -> the engine's save result (saved, or the twin it
reinforced; 422 `refused` for a secret or unusable text).

`POST /api/grade {"ref", "grade": "remember" | "fade"}` -> a graded review (bounded:
vault_sync/ops/review.py) with `prior` and `after`; `POST /api/ungrade {"ref", "prior",
"after"}` writes `prior` back (409 `wrong_state` when the note changed since).

`GET /api/related?path=...&limit=N` -> `{"items": [{path, id, title, score, state,
similarity}], "method": "semantic" | "tags" | "text", "notice": str | null}`, never the LTM
index note (a list of links to everything, not a memory of its own). With
embeddings on, the closest memories in meaning (cosine over the engine's vector cache,
the data behind `embeddings.neighbours`); with them off, memories sharing the note's
tags, else a full-text search on its title, and `notice` says which.
"""

from __future__ import annotations

from typing import Any, Callable

from starlette.routing import Route

from vault_sync.errors import InvalidInput
from vault_sync.index import queries
from vault_sync.lookups import not_current
from vault_sync.search import embeddings

from . import schemas as S

MEMORY_KINDS = ("stm", "ltm")


def related(svc, path: str, limit: int = 10) -> dict:
    if not 1 <= limit <= 100:
        raise InvalidInput("limit must be from 1 to 100")
    row = svc.resolve(path)
    superseded = not_current(svc.engine)  # a replaced fact is never offered as related
    wanted = limit + len(superseded) + 1  # the index note may be among the hits
    hits = _semantic(svc, row, wanted)
    if hits is not None:
        return {"items": _items(svc, hits, superseded, limit), "method": "semantic", "notice": None}
    hits = _by_tags(svc, row, wanted)
    if hits:
        return {
            "items": _items(svc, hits, superseded, limit),
            "method": "tags",
            "notice": "Embeddings are off: memories sharing this note's tags.",
        }
    return {
        "items": _items(svc, _by_text(svc, row, limit), superseded, limit),
        "method": "text",
        "notice": "Embeddings are off: memories matching this note's title.",
    }


def _items(svc, hits: list[tuple[Any, float]], superseded: set[str], limit: int) -> list[dict]:
    out = []
    left_out = superseded | {svc.layout.index_note}
    for hit, similarity in [h for h in hits if h[0]["path"] not in left_out][:limit]:
        view = svc.view(hit)
        out.append(
            {
                "path": view["path"],
                "id": view.get("id"),
                "title": view.get("title"),
                "score": view.get("score"),
                "state": view.get("state"),
                "similarity": round(float(similarity), 4),
            }
        )
    return out


def _semantic(svc, row, limit: int) -> list[tuple[Any, float]] | None:
    """None when embeddings are off or unavailable (the caller falls back)."""
    embedder = embeddings.get_embedder(svc.engine)
    if embedder is None:
        return None
    try:
        embeddings.inline_backfill(svc.engine, embedder)
        cache = embeddings.vector_cache(svc.engine, embedder)
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
        hit = queries.note_by_rowid(svc.store, int(rowids[i]))
        if hit is not None and hit["content_hash"] != row["content_hash"]:
            out.append((hit, float(sims[i])))
    return out


def _by_tags(svc, row, limit: int) -> list[tuple[Any, float]]:
    mine = svc.store.tags_of(row["rowid"])
    if not mine:
        return []
    rows = queries.memories_sharing_tags(svc.store, mine, row["rowid"], limit)
    return [(r, r["shared"] / len(mine)) for r in rows]


def _by_text(svc, row, limit: int) -> list[tuple[Any, float]]:
    title = (row["title"] or "").strip()
    if not title:
        return []
    found = svc.search(title, limit=limit + 1, scope="all")
    results = found.get("results", []) if isinstance(found, dict) else found
    out: list[tuple[Any, float]] = []
    for r in results:
        if r["path"] == row["path"]:
            continue
        hit = svc.store.note(r["path"])
        if hit is not None and hit["kind"] in MEMORY_KINDS and len(out) < limit:
            out.append((hit, float(r.get("score") or 0)))
    return out


def plugin_routes(svc, endpoint: Callable) -> list[Route]:
    """`endpoint(make, model, method)` is the typed edge of http_app: arguments are parsed by
    the model (bridge/schemas.py) before `make` sees them."""
    from .http_jobs import job_routes

    return [
        Route(
            "/api/related",
            endpoint(lambda a: lambda: related(svc, a.path, a.limit), S.RelatedQuery, "GET"),
            methods=["GET"],
        ),
        Route(
            "/api/grade",
            endpoint(lambda a: lambda: svc.review_memory(a.ref, a.grade), S.ReviewMemoryArgs),
            methods=["POST"],
        ),
        Route(
            "/api/ungrade",
            endpoint(lambda a: lambda: svc.undo_review(**S.kwargs(a)), S.UndoReviewArgs),
            methods=["POST"],
        ),
        Route("/api/save", endpoint(lambda a: lambda: svc.save(a.text, a.tags), S.CaptureBody), methods=["POST"]),
        *job_routes(svc, endpoint),
    ]
