"""The LoCoMo bench's rankers (query -> note paths, best first), and the turn and query vectors
they use, cached outside the project so a rerun re-encodes nothing."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeAlias

from vault_sync.index import queries

from .locomo_data import MRR_DEPTH, Conversation, VectorReport

if TYPE_CHECKING:
    from vault_sync.search.embeddings import Embedder, Vectors
    from vault_sync.service import MemoryService


def cache_file_of(cache_dir: Path, conv: Conversation, model: str) -> Path:
    """The turn vectors of one conversation: keyed by note content, so the file name carries
    the form of the text they encode (note.EMBED_TEXT_FORM)."""
    from vault_sync.note import EMBED_TEXT_FORM

    slug = re.sub(r"[^A-Za-z0-9]+", "-", model).strip("-").lower()
    return cache_dir / f"{conv.name}.{slug}.t{EMBED_TEXT_FORM}.npz"


def embed_with_cache(svc: MemoryService, embedder: Model, cache_file: Path | None) -> VectorReport:
    """Fill the index's vectors: cached ones first, the model for the rest; update the cache."""
    import numpy as np

    from vault_sync.search.embeddings import backfill, from_blob, to_blob

    loaded = 0
    if cache_file is not None and cache_file.is_file():
        with np.load(cache_file, allow_pickle=False) as data:
            cached = dict(zip(data["hashes"].tolist(), data["vectors"]))
        wanted = queries.content_hashes(svc.store)
        pairs = [(h, to_blob(v)) for h, v in cached.items() if h in wanted]
        queries.add_embeddings(svc.store, embedder.name, pairs)
        loaded = len(pairs)
    t = time.perf_counter()
    report = backfill(svc.engine)
    took = time.perf_counter() - t
    if cache_file is not None and report.get("embedded"):
        rows = queries.embeddings_of(svc.store, embedder.name)
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(".tmp.npz")
        np.savez(tmp, hashes=np.array([r[0] for r in rows]), vectors=np.stack([from_blob(r[1]) for r in rows]))
        tmp.replace(cache_file)
    return {"from_cache": loaded, "encoded": report.get("embedded", 0), "encode_s": took, "error": report.get("error")}


class QueryVectors:
    """The embedder, with query vectors kept across runs (a file in the cache folder): a
    ranking experiment then re-encodes nothing. Search latency is measured without it."""

    def __init__(self, embedder: Embedder, cache_file: Path | None):
        self.inner = embedder
        self.name = embedder.name
        self.batch_size = embedder.batch_size
        self.file = cache_file
        self.known: dict[str, Vectors] = {}
        self.dirty = False
        if cache_file is not None and cache_file.is_file():
            import numpy as np

            with np.load(cache_file, allow_pickle=False) as data:
                self.known = dict(zip(data["texts"].tolist(), data["vectors"]))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def load(self) -> Any:
        return self.inner.load()

    def encode(self, texts: list[str], background: bool = False) -> Vectors:
        return self.inner.encode(texts, background=background)

    def encode_one(self, text: str) -> Vectors:
        vec = self.known.get(text)
        if vec is None:
            vec = self.known[text] = self.inner.encode_one(text)
            self.dirty = True
        return vec

    def save(self) -> None:
        if self.file is None or not self.dirty:
            return
        import numpy as np

        self.file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.file.with_suffix(".tmp.npz")
        np.savez(tmp, texts=np.array(list(self.known)), vectors=np.stack(list(self.known.values())))
        tmp.replace(self.file)


Model: TypeAlias = "Embedder | QueryVectors"  # what the bench encodes with: the model, or it with a query cache


def _model_of(embedder: Model) -> Embedder:
    return embedder.inner if isinstance(embedder, QueryVectors) else embedder


# -- rankers: query -> note paths, best first ---------------------------------------------


def engine_ranker(svc: MemoryService) -> Callable[[str], list[str]]:
    return lambda q: [r["path"] for r in svc.search(q, limit=MRR_DEPTH, blend_review=False)["results"]]


def bm25_ranker(svc: MemoryService) -> Callable[[str], list[str]]:
    from vault_sync.search import fts

    filters = fts.make_filters(svc.engine, "memories")

    def rank(q: str) -> list[str]:
        hits = fts.search(svc.store, q, filters, limit=MRR_DEPTH)
        return _paths(svc, [h.rowid for h in sorted(hits, key=lambda h: -h.bm25)])

    return rank


def minilm_ranker(svc: MemoryService, embedder: Model) -> Callable[[str], list[str]]:
    import numpy as np

    from vault_sync.search.embeddings import vector_cache

    def rank(q: str) -> list[str]:
        rowids, sims = vector_cache(svc.engine, _model_of(embedder)).similarities(
            embedder.encode_one(q), ("stm", "ltm")
        )
        order = np.argsort(-sims, kind="stable")[:MRR_DEPTH]
        return _paths(svc, [int(rowids[i]) for i in order])

    return rank


def _paths(svc: MemoryService, rowids: list[int]) -> list[str]:
    if not rowids:
        return []
    got = queries.paths_by_rowid(svc.store, rowids)
    return [got[r] for r in rowids if r in got]
