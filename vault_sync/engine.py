"""The engine's parts, built once per vault and handed to every operation.

`Engine` holds what the operations read (settings, layout, scoring parameters, the index,
the indexer, the write path, events, the editor hold, the runtime, the clock); it imports
no operation. Operations in ops/, search/ and transfer/ take it as their first argument and
call each other directly; `MemoryService` (service.py) is the facade the front ends hold:
it builds an engine, holds the write lock around an operation and delegates. What changes
while the engine lives (the clock a test swaps, the model, the watcher, the lease, memos)
sits on holder objects the engine points to, so the engine itself never changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from .dates import utc_now
from .editor_hold import EditorHold
from .events import Events
from .index.store import IndexStore
from .index.sync import Indexer
from .runtime import Runtime
from .scoring import ScoringParams
from .settings import Settings
from .vault import Layout
from .write_path import WritePath


class Clock:
    """The engine's time: a callable whose source a test may swap for a fixed now."""

    def __init__(self, source: Callable[[], datetime]):
        self.source = source

    def __call__(self) -> datetime:
        return self.source()


@dataclass(frozen=True, eq=False)
class Engine:
    settings: Settings
    clock: Clock
    layout: Layout
    params: ScoringParams
    store: IndexStore
    indexer: Indexer
    events: Events
    writes: WritePath
    editor: EditorHold
    runtime: Runtime

    def now(self) -> datetime:
        return self.clock()

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        self.events.emit(kind, data)

    def emit_scores(self, paths: list[str], rows: dict[str, Any] | None = None) -> None:
        self.events.scores(paths, rows)


def build_engine(
    settings: Settings, clock: Callable[[], datetime] = utc_now, store: IndexStore | None = None
) -> Engine:
    """The parts for one vault. The write path's `after_sync` (repairs a sync may call for,
    such as duplicate ids) is an operation: the facade sets it."""
    time = Clock(clock)
    layout = Layout.from_settings(settings)
    layout.check_own_folders()  # STM/ a link to a folder elsewhere: refuse to start, saying why
    params = ScoringParams.from_settings(settings)
    store = store or IndexStore(settings.resolved_index_path())
    events = Events(store, params, time)
    indexer = Indexer(store, layout, settings.max_note_bytes, on_changes=events.changes, on_conflicts=events.conflicts)
    writes = WritePath(layout, indexer, events.emit, events.scores)
    runtime = Runtime(settings, layout, indexer)
    editor = EditorHold(time)  # the note open in the editor: background writes wait
    return Engine(
        settings=settings,
        clock=time,
        layout=layout,
        params=params,
        store=store,
        indexer=indexer,
        events=events,
        writes=writes,
        editor=editor,
        runtime=runtime,
    )
