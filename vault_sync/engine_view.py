"""The engine's parts as the facade shows them (`svc.store`, `svc.layout`...): read by the front
ends and the tests, never replaced through it (the clock aside, which tests fix)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from .editor_hold import EditorHold
from .engine import Engine
from .index.store import IndexStore
from .index.sync import Indexer
from .runtime import Runtime
from .scoring import ScoringParams
from .settings import Settings
from .vault import Layout
from .write_path import WritePath

if TYPE_CHECKING:
    from .lease import Lease
    from .watcher import VaultWatcher


class EngineView:
    """The base of MemoryService: its engine's parts, read-only."""

    engine: Engine

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.engine.clock.source

    @clock.setter
    def clock(self, source: Callable[[], datetime]) -> None:
        """Tests set a fixed now; everything in the engine reads the time through it."""
        self.engine.clock.source = source

    @property
    def layout(self) -> Layout:
        return self.engine.layout

    @property
    def params(self) -> ScoringParams:
        return self.engine.params

    @property
    def store(self) -> IndexStore:
        return self.engine.store

    @property
    def indexer(self) -> Indexer:
        return self.engine.indexer

    @property
    def writes(self) -> WritePath:
        return self.engine.writes

    @property
    def runtime(self) -> Runtime:
        return self.engine.runtime

    @property
    def editor(self) -> EditorHold:
        return self.engine.editor

    @property
    def watcher(self) -> VaultWatcher | None:
        return self.runtime.watcher

    @property
    def lease(self) -> Lease | None:
        return self.runtime.lease

    # the model and its vector cache live in the runtime (read-only here); search/model.py and
    # search/vector_cache.py create them on first use through runtime.use_embedder / keep_vectors
    @property
    def embedder(self) -> Any:
        return self.runtime.embedder

    @property
    def vectors(self) -> Any:
        return self.runtime.vectors
