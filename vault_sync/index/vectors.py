"""Named statements over the `embeddings` table and the note rows a vector search maps to:
what vault_sync/search/ (the vector cache in vector_cache.py, the backfill in embeddings.py) reads and writes.

Vectors are keyed by (content_hash, model); each function takes the IndexStore.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from .fragments import in_chunks, marks

if TYPE_CHECKING:
    from .store import IndexStore


def vector_count(store: "IndexStore", model: str) -> int:
    row = store.one("SELECT count(*) FROM embeddings WHERE model = ?", (model,))
    return int(row[0]) if row is not None else 0


def vector_hashes(store: "IndexStore", model: str) -> list[str]:
    """The content hashes that have a vector of `model`."""
    return [r[0] for r in store.query("SELECT content_hash FROM embeddings WHERE model = ?", (model,))]


def vectors_of(store: "IndexStore", model: str, hashes: list[str]) -> list[tuple[str, bytes]]:
    """(content hash, vector blob) of `model` for those of `hashes` that have one."""
    out: list[tuple[str, bytes]] = []
    for chunk in in_chunks(hashes):
        out += [
            (r[0], r[1])
            for r in store.query(
                "SELECT content_hash, vector FROM embeddings WHERE model = ? AND content_hash IN "
                f"({marks(len(chunk))})",
                (model, *chunk),
            )
        ]
    return out


def note_contents(store: "IndexStore") -> list[tuple[int, str, str]]:
    """(rowid, kind, content_hash) of every note: how search maps vectors back to notes."""
    return [(r[0], r[1], r[2]) for r in store.query("SELECT rowid, kind, content_hash FROM notes")]


def missing_vectors(store: "IndexStore", model: str, limit: int | None = None) -> list[tuple[str, int]]:
    """(content_hash, the first rowid holding it) for every note content without a vector of
    `model`, oldest first; at most `limit`."""
    sql = (
        "SELECT n.content_hash, min(n.rowid) FROM notes n WHERE NOT EXISTS "
        "(SELECT 1 FROM embeddings e WHERE e.content_hash = n.content_hash AND e.model = ?) "
        "GROUP BY n.content_hash ORDER BY min(n.rowid)"
    )
    if limit is None:
        return [(r[0], r[1]) for r in store.query(sql, (model,))]
    return [(r[0], r[1]) for r in store.query(sql + " LIMIT ?", (model, int(limit)))]


def embed_texts(store: "IndexStore", rowids: list[int]) -> list[tuple[int, str, str, str]]:
    """(rowid, title, body, tags) as indexed for full-text search: what a vector embeds."""
    out: list[tuple[int, str, str, str]] = []
    for chunk in in_chunks(rowids):
        out += [
            (r[0], r[1] or "", r[2] or "", r[3] or "")
            for r in store.query(
                f"SELECT rowid, title, body, tags FROM fts WHERE rowid IN ({marks(len(chunk))})", tuple(chunk)
            )
        ]
    return out


def store_vectors(store: "IndexStore", model: str, pairs: list[tuple[str, bytes]]) -> None:
    """Vectors (content hash, blob) of `model`, replacing any stored for the same content."""
    with store.transaction() as db:
        db.executemany(
            "INSERT OR REPLACE INTO embeddings (content_hash, model, vector) VALUES (?, ?, ?)",
            [(h, model, blob) for h, blob in pairs],
        )


def hit_row(store: "IndexStore", rowid: int) -> sqlite3.Row | None:
    """path, id, title, kind and content_hash of one note (a vector search's hit)."""
    return store.one("SELECT path, id, title, kind, content_hash FROM notes WHERE rowid = ?", (rowid,))
