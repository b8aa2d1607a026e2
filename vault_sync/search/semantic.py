"""The model as operations ask for it: None whenever embeddings are off in the settings.
Nothing here imports numpy until embeddings are on (a full-text CLI command starts fast)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from ..engine import Engine

if TYPE_CHECKING:
    from .model import Embedder


def embedder(engine: Engine) -> "Embedder | None":
    if not engine.settings.embeddings:
        return None
    from .model import get_embedder

    return get_embedder(engine)


def embedder_now(engine: Engine) -> "Embedder | None":
    """The model if it is loaded: never loads it, never waits (model.embedder_now)."""
    if not engine.settings.embeddings or engine.runtime.embedder is None:
        return None  # no load started: nothing to import (numpy costs a first save 0.1 s)
    from .model import embedder_now as now

    return now(engine)


def neighbours(engine: Engine, row: sqlite3.Row, limit: int = 3) -> list[str]:
    """Names of memories closest in meaning (empty when embeddings are off or the model is
    still loading: a promotion does not wait for it)."""
    if not engine.settings.embeddings:
        return []
    try:
        from .embeddings import neighbours as closest
    except ImportError:
        return []
    if embedder_now(engine) is None:
        return []
    try:
        return closest(engine, row, limit)
    except Exception:  # an extra: never fail a promotion over it
        return []
