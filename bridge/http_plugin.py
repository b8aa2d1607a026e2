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

from typing import Callable

from starlette.routing import Route

from . import schemas as S


def plugin_routes(svc, endpoint: Callable) -> list[Route]:
    """`endpoint(make, model, method)` is the typed edge of http_app: arguments are parsed by
    the model (bridge/schemas.py) before `make` sees them."""
    from .http_jobs import job_routes

    return [
        Route(
            "/api/related",
            endpoint(lambda a: lambda: svc.related(a.path, a.limit), S.RelatedQuery, "GET"),
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
