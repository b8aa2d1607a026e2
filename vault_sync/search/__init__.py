"""Search: full text (FTS5), local semantic embeddings, hybrid ranking, clustering. It reads only
(consolidation, which writes, is ops/consolidate.py).

Import the submodules for the functions. Names here load on first use: a full-text search
from the command line must not pay for numpy (torch and sentence-transformers load on
first use of an Embedder).
"""

from importlib import import_module

_NAMES = {
    "Embedder": "embeddings",
    "EmbeddingUnavailable": "embeddings",
    "backfill": "embeddings",
    "get_embedder": "embeddings",
    "near_duplicates": "embeddings",
    "search": "hybrid",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> object:
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_NAMES[name]}", __name__), name)
