"""A damaged index repaired from the vault: at open (index/store.py checks what is cheap),
when a daemon starts or `sync` runs (a full check), and when an operation meets damage (the
index answers IndexDamaged; reads run again once repaired, writes say to check and repeat).

index/health.py finds the damage and makes the tables (or the file) anew; this reads the
vault into them again.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import threading
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from ..errors import IndexDamaged
from ..index.health import FTS_TABLES

if TYPE_CHECKING:
    from ..index.sync import SyncReport
    from ..service import MemoryService

log = logging.getLogger("mnemovault.index")
F = TypeVar("F", bound=Callable[..., Any])
_inside = threading.local()  # an operation inside another repairs once, at the outer one


def repair_index(svc: "MemoryService", reason: str, parts: list[str] | None = None) -> dict[str, Any] | None:
    """Check the index fully, make what is damaged anew and read the vault into it."""
    with svc.indexer.sync_lock:  # the watcher and the write path sync through this lock
        parts = parts if parts is not None else svc.store.check_health(full=True)
        if not parts:
            return None
        svc.store.repair(parts, reason)
        svc.runtime.keep_vectors(None)  # its rows point at row ids the rebuild renumbers
        report = svc.indexer.reconcile()
    svc.after_sync(report)
    return svc.store.last_repair


def rebuild(svc: "MemoryService", progress: Any = None) -> "SyncReport":
    """`sync --rebuild`: works whatever is damaged, remaking the tables, then the file if need be."""
    with svc.indexer.sync_lock:
        try:
            found = svc.store.check_health(full=True)
        except sqlite3.DatabaseError:
            found = ["file"]
        for parts in (found, list(FTS_TABLES), ["file"]):
            if parts:
                svc.store.repair(parts, "found by sync --rebuild")
                svc.runtime.keep_vectors(None)
            try:
                return svc.indexer.reconcile(rebuild=True, progress=progress)
            except IndexDamaged as exc:
                log.warning("rebuilding the index met damage: %s", exc)
    raise IndexDamaged("the index could not be rebuilt even in a new file; see the log")


def healing(retry: bool) -> Callable[[F], F]:
    """Wrap a service method: damage met on the way is repaired from the vault; a read then
    runs again, any other operation says what happened."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def run(svc: "MemoryService", *args: Any, **kwargs: Any) -> Any:
            if getattr(_inside, "depth", 0):
                return method(svc, *args, **kwargs)
            _inside.depth = 1
            try:
                try:
                    return method(svc, *args, **kwargs)
                except IndexDamaged as exc:
                    repair_index(svc, f"met by {method.__name__}: {exc}", parts=svc.store.check_health(full=True) or list(FTS_TABLES))
                    if not retry:
                        raise IndexDamaged(f"{exc}; it was rebuilt from the vault: check whether {method.__name__} "
                                           "took effect before repeating it") from None
                return method(svc, *args, **kwargs)
            finally:
                _inside.depth = 0

        return run  # type: ignore[return-value]

    return wrap
