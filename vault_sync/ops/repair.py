"""A damaged index repaired from the vault: at open (index/store.py checks what is cheap),
when a daemon starts or `sync` runs (a full check), and when an operation meets damage (the
index answers IndexDamaged; reads run again once repaired, writes say to check and repeat).

index/health.py finds the damage and makes the tables (or the file) anew; this reads the
vault into them again.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from ..engine import Engine
from ..errors import IndexDamaged
from ..index.health import FTS_TABLES
from .ids import fix_duplicate_ids, settle_duplicate_ids

if TYPE_CHECKING:
    from ..index.sync import SyncReport

log = logging.getLogger("mnemovault.index")
T = TypeVar("T")


def repair_index(engine: Engine, reason: str, parts: list[str] | None = None) -> dict[str, Any] | None:
    """Check the index fully, make what is damaged anew and read the vault into it."""
    with engine.indexer.sync_lock:  # the watcher and the write path sync through this lock
        parts = parts if parts is not None else engine.store.check_health(full=True)
        if not parts:
            return None
        engine.store.repair(parts, reason)
        engine.runtime.keep_vectors(None)  # its rows point at row ids the rebuild renumbers
        report = engine.indexer.reconcile()
    after_sync(engine, report)
    return engine.store.last_repair


def rebuild(engine: Engine, progress: Any = None) -> "SyncReport":
    """`sync --rebuild`: works whatever is damaged, remaking the tables, then the file if need be."""
    with engine.indexer.sync_lock:
        try:
            found = engine.store.check_health(full=True)
        except sqlite3.DatabaseError:
            found = ["file"]
        for parts in (found, list(FTS_TABLES), ["file"]):
            if parts:
                engine.store.repair(parts, "found by sync --rebuild")
                engine.runtime.keep_vectors(None)
            try:
                return engine.indexer.reconcile(rebuild=True, progress=progress)
            except IndexDamaged as exc:
                log.warning("rebuilding the index met damage: %s", exc)
    raise IndexDamaged("the index could not be rebuilt even in a new file; see the log")


def after_sync(engine: Engine, report: "SyncReport") -> None:
    """What a sync of the vault may call for in the vault itself: a copied memory's
    duplicate id is replaced (through the write path). The watcher calls it too."""
    if report.new_ids:
        with engine.writes.operation():
            fix_duplicate_ids(engine, report)


def sync(engine: Engine, rebuild_all: bool = False, progress: Any = None, check: bool = False) -> "SyncReport":
    """Reconcile the index with the vault. `rebuild_all` works on any damage to the index;
    `check` (a sync the person asked for) checks the whole index first and repairs what is
    damaged or missing; the report's `index_repair` says what was."""
    repaired = repair_index(engine, "found by sync") if check and not rebuild_all else None
    report = rebuild(engine, progress) if rebuild_all else engine.indexer.reconcile(progress=progress)
    report.index_repair = repaired
    report.new_ids = set()  # every duplicate is looked at below, the new ones with the rest
    with engine.writes.operation():
        report.id_fixes += settle_duplicate_ids(engine)
    return report


def heal(engine: Engine, name: str, retry: bool, call: Callable[[], T]) -> T:
    """Run `call`; damage met on the way is repaired from the vault; a read (`retry`) then
    runs again, any other operation says what happened. An operation inside another repairs
    once, at the outer one."""
    inside = engine.runtime.healing
    if getattr(inside, "depth", 0):
        return call()
    inside.depth = 1
    try:
        try:
            return call()
        except IndexDamaged as exc:
            repair_index(
                engine, f"met by {name}: {exc}", parts=engine.store.check_health(full=True) or list(FTS_TABLES)
            )
            if not retry:
                raise IndexDamaged(
                    f"{exc}; it was rebuilt from the vault: check whether {name} took effect before repeating it"
                ) from None
        return call()
    finally:
        inside.depth = 0
