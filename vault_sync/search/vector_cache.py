"""Stored vectors in memory: every vector of one model as one matrix, with the notes that
use each row, kept by the runtime and refreshed as the index changes."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Iterable

import numpy as np
from numpy.typing import NDArray

from ..engine import Engine
from ..index import vectors as vq
from .model import DIM, Embedder, Vectors

if TYPE_CHECKING:
    from ..index.store import IndexStore

KIND_CODE = {"stm": 0, "ltm": 1, "archive": 2, "note": 3}


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


def vector_cache(engine: Engine, embedder: Embedder) -> VectorCache:
    """The runtime's cache for this embedder's model (a new one when the model or store changed)."""
    cache: VectorCache | None = engine.runtime.vectors
    if cache is None or cache.model != embedder.name or cache.store is not engine.store:
        cache = VectorCache(engine.store, embedder.name)
        engine.runtime.keep_vectors(cache)
    return cache
