"""What the engine announces (indexed, deleted, problem, score_changed, job...) to whoever
subscribed: the daemon's server-sent events, MCP notifications, tests."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from .ageing import of_row
from .index import queries

if TYPE_CHECKING:
    from .index.store import IndexStore
    from .index.sync import Change
    from .scoring import ScoringParams

Listener = Callable[[str, dict[str, Any]], None]


class Events:
    def __init__(self, store: "IndexStore", params: "ScoringParams", clock: Callable[[], datetime]):
        self.store = store
        self.params = params
        self.clock = clock
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(kind, data)
            except Exception:  # a broken subscriber must not break an operation
                pass

    def has_listeners(self) -> bool:
        with self._lock:
            return bool(self._listeners)

    def changes(self, changes: list["Change"]) -> None:
        """The indexer's report of what a sync changed."""
        if not self.has_listeners():
            return  # events nobody hears are not worth a query per note (a sweep writes thousands)
        for c in changes:
            if c.type == "deleted":
                self.emit("deleted", {"path": c.path})
            else:
                self.emit("indexed", {"path": c.path, "id": c.id, "old_path": c.old_path})
        for p in queries.problems_in(self.store, [c.path for c in changes]):
            self.emit("problem", {"path": p["path"], "cause": p["cause"]})

    def conflicts(self, new: dict[str, str]) -> None:
        """Conflict copies seen for the first time: the daemon's lease holder merges those of
        mnemovault's own making at once (bridge/server.py), not at its next scheduled run."""
        for copy, original in sorted(new.items()):
            self.emit("conflict_copy", {"path": copy, "original": original})

    def scores(self, paths: list[str], rows: dict[str, Any] | None = None) -> None:
        """`rows`: index rows already at hand (a score depends on use_count, last_used, strength)."""
        if not self.has_listeners():
            return
        now = self.clock()
        for rel in paths:
            row = rows.get(rel) if rows else None
            row = row if row is not None else self.store.note(rel)
            if row is not None:
                a = of_row(self.params, row, now)
                self.emit("score_changed", {"path": rel, "id": row["id"], "score": a.score, "state": a.state})
