"""Search: full text (FTS5), local semantic embeddings, hybrid ranking, clustering, consolidation.

Import the submodules for the functions; this package imports nothing heavy (torch and
sentence-transformers load on first use of an Embedder).
"""

from .embeddings import Embedder, EmbeddingUnavailable, backfill, get_embedder, near_duplicates
from .hybrid import search

__all__ = ["Embedder", "EmbeddingUnavailable", "backfill", "get_embedder", "near_duplicates", "search"]
