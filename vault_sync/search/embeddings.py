"""Local sentence embeddings at work: backfill of missing vectors, the query vector of a
new memory, near-duplicate checks and a note's neighbours in meaning.

Vectors are keyed by a note's content_hash (title, tags and body), so a moved or re-scored
note keeps its vector. The model lives in search/model.py, the in-memory matrix in
search/vector_cache.py (their names are importable from here too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..engine import Engine
from ..index import vectors as vq
from ..names import slug_from
from ..note import embed_text
from .model import (
    BACKGROUND_SLICE,
    DIM,
    Embedder,
    EmbeddingUnavailable,
    Vectors,
    embedder_now,
    get_embedder,
    resolve_model,
    warm_model,
)
from .vector_cache import KIND_CODE, VectorCache, from_blob, to_blob, vector_cache

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "BACKGROUND_SLICE",
    "DIM",
    "INLINE_BACKFILL_MAX",
    "KIND_CODE",
    "Embedder",
    "EmbeddingUnavailable",
    "Progress",
    "VectorCache",
    "Vectors",
    "backfill",
    "embedder_now",
    "from_blob",
    "get_embedder",
    "inline_backfill",
    "missing_hashes",
    "near_duplicates",
    "neighbours",
    "prune",
    "query_vector",
    "resolve_model",
    "texts_for",
    "to_blob",
    "vector_cache",
    "warm_model",
]

INLINE_BACKFILL_MAX = 64  # search embeds this many missing notes itself; more is `embed`'s job
Progress = Callable[[int, int], None]


# -- backfill ----------------------------------------------------------------------------


def missing_hashes(engine: Engine, model: str, limit: int | None = None) -> list[tuple[str, int]]:
    """(content_hash, one rowid holding it) for every note content without a vector."""
    return vq.missing_vectors(engine.store, model, limit)


def inline_backfill(engine: Engine, embedder: Embedder) -> bool:
    """Embed the few notes without a vector now (a search must find a note saved a moment
    ago). False when too many lack one for that: the daemon's backfill is at work. The scan
    (~10 ms at 10k notes, mnemovault bench's search rows) is skipped while the index is as it was when nothing was
    missing."""
    cache = vector_cache(engine, embedder)
    signature = cache.signature()  # taken first: a change during the scan shows up next time
    if cache.complete_at == signature:
        return True
    pending = missing_hashes(engine, embedder.name, INLINE_BACKFILL_MAX + 1)
    if len(pending) > INLINE_BACKFILL_MAX:
        return False
    if pending:
        backfill(engine)
    else:
        cache.complete_at = signature
    return True


def texts_for(engine: Engine, rowids: list[int]) -> dict[int, str]:
    return {
        rowid: embed_text(title, tags.split(), body)
        for rowid, title, body, tags in vq.embed_texts(engine.store, rowids)
    }


def backfill(engine: Engine, progress: Progress | None = None, limit: int | None = None) -> dict[str, Any]:
    """Embed every note content missing from the `embeddings` table, in batches.

    Returns {"embedded", "total", "model", "error"}; a model that cannot load is reported in
    "error", not raised.
    """
    embedder = get_embedder(engine)
    if embedder is None:
        return {"embedded": 0, "total": 0, "model": None, "error": "embeddings are turned off"}
    todo = missing_hashes(engine, embedder.name, limit)
    done = 0
    if progress:
        progress(0, len(todo))
    if not todo:
        return {"embedded": 0, "total": 0, "model": embedder.name, "error": None}
    try:
        embedder.load()
    except EmbeddingUnavailable as exc:
        return {"embedded": 0, "total": len(todo), "model": embedder.name, "error": str(exc)}
    cache = vector_cache(engine, embedder)
    step = embedder.batch_size * 8  # a few model batches per round trip: close to the raw model rate
    for start in range(0, len(todo), step):
        chunk = todo[start : start + step]
        text_by_rowid = texts_for(engine, [rowid for _, rowid in chunk])
        pairs = [(h, text_by_rowid[rowid]) for h, rowid in chunk if rowid in text_by_rowid]
        if pairs:
            vectors = embedder.encode([t for _, t in pairs], background=True)
            vq.store_vectors(engine.store, embedder.name, [(h, to_blob(v)) for (h, _), v in zip(pairs, vectors)])
            cache.add([h for h, _ in pairs], vectors)
        done += len(chunk)
        if progress:
            progress(done, len(todo))
    return {"embedded": done, "total": len(todo), "model": embedder.name, "error": None}


def prune(engine: Engine) -> int:
    """Delete vectors no note uses any more (edited or deleted notes). Returns how many."""
    return engine.store.prune_embeddings()


def query_vector(engine: Engine, text: str, title: str | None = None, tags: list[str] | None = None) -> Vectors | None:
    """The vector a new memory's text would be stored under (the save-time checks compare it
    with the stored ones). Without a title, the one a saved note would get is used. None
    when embeddings are off, the text is empty or the model cannot load."""
    embedder = get_embedder(engine)
    if embedder is None or not text or not text.strip():
        return None
    try:
        inline_backfill(engine, embedder)
        if title is None:  # the title a saved note would get: its first words
            title = slug_from(text)
        return embedder.encode_one(embed_text(title, tags or [], text))
    except EmbeddingUnavailable:
        return None


def near_duplicates(
    engine: Engine,
    text: str,
    threshold: float = 0.95,
    title: str | None = None,
    tags: list[str] | None = None,
    kinds: tuple[str, ...] = ("stm", "ltm"),
    query: Vectors | None = None,
) -> list[dict[str, Any]]:
    """Memories whose content is at least `threshold` cosine-similar to `text` (save-time check).

    Stored vectors embed title, tags and body; pass the new note's title and tags to compare
    like with like (query_vector). `query`: that vector when the caller has it already.
    Empty when embeddings are off or the model cannot load: the check is advisory.
    """
    embedder = get_embedder(engine)
    if embedder is None:
        return []
    if query is None:
        query = query_vector(engine, text, title, tags)
    if query is None:
        return []
    rowids, sims = vector_cache(engine, embedder).similarities(query, kinds)
    hits = [(int(r), float(s)) for r, s in zip(rowids, sims) if s >= threshold]
    hits.sort(key=lambda x: -x[1])
    out: list[dict[str, Any]] = []
    for rowid, sim in hits[:10]:
        row = vq.hit_row(engine.store, rowid)
        if row is not None:
            out.append(
                {
                    "path": row["path"],
                    "id": row["id"],
                    "title": row["title"],
                    "kind": row["kind"],
                    "similarity": round(sim, 4),
                }
            )
    return out


NEIGHBOUR_MIN = 0.5


def neighbours(
    engine: Engine, row: "sqlite3.Row", limit: int = 3, kinds: tuple[str, ...] = ("stm", "ltm")
) -> list[str]:
    """Vault paths (without .md) of the memories closest in meaning to an indexed note.

    Used for a promoted note's Related section; empty when embeddings are off or unavailable.
    """
    embedder = get_embedder(engine)
    if embedder is None:
        return []
    try:
        inline_backfill(engine, embedder)
        cache = vector_cache(engine, embedder)
        vecs = cache.vectors_for([row["content_hash"]])
        if vecs is None:
            return []
    except EmbeddingUnavailable:
        return []
    rowids, sims = cache.similarities(vecs[0], kinds)
    order = np.argsort(-sims)
    out: list[str] = []
    for i in order:
        if sims[i] < NEIGHBOUR_MIN or len(out) >= limit:
            break
        if int(rowids[i]) == row["rowid"]:
            continue
        hit = vq.hit_row(engine.store, int(rowids[i]))
        if hit is not None and hit["content_hash"] != row["content_hash"]:
            path: str = hit["path"]
            out.append(path[:-3] if path.lower().endswith(".md") else path)
    return out
