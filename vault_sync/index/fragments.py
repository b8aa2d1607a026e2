"""Pieces of SQL the index's modules share (queries, full text, trigrams, windows)."""

from __future__ import annotations

from typing import Any, Iterator

CHUNK = 500  # SQLite caps the number of parameters per statement


def in_chunks(items: list[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    """`items` in slices small enough for one `IN (...)` list."""
    for i in range(0, len(items), size):
        yield items[i : i + size]


def marks(n: int) -> str:
    return ",".join("?" * n)


# supersession: frontmatter links `superseded_by` / `supersedes`, as the indexer stores them
SUPERSEDED_BY = "related:superseded_by"
SUPERSEDES = "related:supersedes"
SUPERSEDED_SQL = (
    f"(SELECT source FROM links WHERE kind = '{SUPERSEDED_BY}' "
    "UNION SELECT rowid FROM notes WHERE status = 'superseded')"
)
