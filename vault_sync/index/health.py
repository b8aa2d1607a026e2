"""Index health: find damage in the index's tables and make them anew, without the person
deleting files.

Everything in the index but the vector cache is derived from the vault, so a repair never
needs the damaged data. A damaged or missing table (fts, trigram, windows, or any other the
schema makes, dropped by hand or by a tool) is dropped and created empty, and every derived
row is cleared so the next reconcile reads the vault again; when SQLite cannot even drop it,
or the file's own structure is damaged, the file is set aside and a new one made, keeping
the stored vectors when they read back whole.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Protocol

from ..dates import format_datetime
from .schema import DERIVED_TABLES, SCHEMA_TABLES

log = logging.getLogger("mnemovault.index")

FTS_TABLES = ("fts", "trigram", "windows")


class Repairable(Protocol):
    """What a repair reads and resets on the index's store (index/store.py's IndexStore,
    which imports this module)."""

    db: sqlite3.Connection
    path: Path | str
    names_version: int
    notes_version: int
    fts_writes: int
    resolver_cache: tuple[int, Any] | None
    last_repair: dict[str, Any] | None
    clock: Callable[[], datetime]

    def reopen(self) -> None: ...

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...


# opening an index checks its full-text tables when it holds at most this many notes (about
# 0.05 s); a bigger index is checked fully when a daemon starts, by `sync`, and on any error.
# Both costs are re-measured by `python -m bridge.bench.thresholds`.
CHECK_AT_OPEN_NOTES = 1000
QUICK_CHECK_AT_OPEN_BYTES = 32 << 20  # PRAGMA quick_check reads every page: ~0.1 s for 48 MB
CORRUPT_CODES = {sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT}


def is_damage(exc: BaseException) -> bool:
    """A database error that means damaged data (not a lock, a full disk or a bad query)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in CORRUPT_CODES:  # SQLITE_CORRUPT_VTAB and friends too
        return True
    text = str(exc).lower()
    if text.startswith("no such table: "):  # a table of the schema dropped (not a bad query's name)
        return is_schema_table(text.removeprefix("no such table: "))
    # FTS5 reports a damaged config row as a plain error; its query syntax errors say 'syntax'
    return "malformed" in text or "fts5 file format" in text or "corrupt" in text


def is_schema_table(name: str) -> bool:
    """A table the schema makes, or one of its full-text tables' shadow tables (fts_data...)."""
    name = name.strip().removeprefix("main.")
    return name in SCHEMA_TABLES or any(name.startswith(f"{table}_") for table in FTS_TABLES)


def missing_tables(db: sqlite3.Connection) -> list[str]:
    """The schema's tables that are not in the file (cheap: the schema table only)."""
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [table for table in SCHEMA_TABLES if table not in present]


def damaged_parts(db: sqlite3.Connection, path: Path | str, full: bool) -> list[str]:
    """'file' when SQLite's own structure is damaged, else the damaged full-text tables; []
    when all is well. Not `full`: only the checks cheap on this index (at open)."""
    try:
        size = os.path.getsize(path) if isinstance(path, Path) else 0
        if full or size <= QUICK_CHECK_AT_OPEN_BYTES:
            result = [r[0] for r in db.execute("PRAGMA quick_check").fetchall()]
            if result != ["ok"]:
                log.warning("index %s: quick_check found %s", path, "; ".join(map(str, result[:5])))
                return ["file"]
        missing = missing_tables(db)
        if missing:
            log.warning("index %s: the %s table(s) are missing", path, ", ".join(missing))
            # without meta the schema version is lost: a new file, made whole by _ensure_schema
            return ["file"] if "meta" in missing else missing
        notes = db.execute("SELECT count(*) FROM notes").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            return ["file"]
        raise
    if not full and notes > CHECK_AT_OPEN_NOTES:
        return []
    bad = []
    for table in FTS_TABLES:
        try:
            db.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            log.warning("index %s: the %s table is damaged (%s)", path, table, exc)
            bad.append(table)
    return bad


def remake_tables(db: sqlite3.Connection, tables: list[str], schema: str) -> None:
    """Drop these tables (damaged full-text tables, or missing ones), create them empty, clear
    every derived row (the next reconcile reads the whole vault). Raises sqlite3.DatabaseError
    when SQLite cannot."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for table in tables:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        for table in DERIVED_TABLES:
            if table not in tables:
                db.execute(f"DELETE FROM {table}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.executescript(schema)  # CREATE ... IF NOT EXISTS: only what was dropped


def readable_vectors(db: sqlite3.Connection) -> list[tuple[str, str, bytes]]:
    """The stored vectors, when they read back whole (one length per model); else none."""
    try:
        rows = [
            (str(r[0]), str(r[1]), bytes(r[2]))
            for r in db.execute("SELECT content_hash, model, vector FROM embeddings")
        ]
    except (sqlite3.DatabaseError, TypeError, ValueError) as exc:
        log.warning("the stored vectors could not be read (%s); they will be computed again", exc)
        return []
    lengths: dict[str, set[int]] = {}
    for _, model, blob in rows:
        lengths.setdefault(model, set()).add(len(blob))
    whole = {m for m, seen in lengths.items() if len(seen) == 1 and next(iter(seen)) % 4 == 0}
    return [r for r in rows if r[1] in whole]


def move_aside(path: Path, now: datetime) -> Path:
    """Rename a damaged index (and its WAL and shared-memory files) to <index>.corrupt-<time>."""
    aside = path.with_name(f"{path.name}.corrupt-{now.strftime('%Y%m%dT%H%M%SZ')}")
    n = 2
    while aside.exists():
        aside = path.with_name(f"{path.name}.corrupt-{now.strftime('%Y%m%dT%H%M%SZ')}-{n}")
        n += 1
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, aside.with_name(aside.name + suffix))
    return aside


def repair(store: Repairable, parts: list[str], reason: str, schema: str) -> str:
    """Make the damaged parts of `store` anew, empty: the full-text tables, or (when SQLite
    cannot drop them, or the file itself is damaged) the whole file, keeping whole vectors.
    Records it in store.last_repair; returns 'tables' or 'file'. Call with store.lock held."""
    how = "tables"
    try:
        if "file" in parts:
            raise sqlite3.DatabaseError("the file's structure is damaged")
        remake_tables(store.db, [p for p in parts if p in SCHEMA_TABLES] or list(FTS_TABLES), schema)
    except sqlite3.DatabaseError:
        how = "file"
        vectors = readable_vectors(store.db)
        store.reopen()
        if vectors:
            with store.transaction() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO embeddings (content_hash, model, vector) VALUES (?, ?, ?)", vectors
                )
    store.names_version += 1
    store.notes_version += 1
    store.resolver_cache = None
    store.fts_writes = 0
    record_repair(store, reason, parts, how)
    log.warning(
        "index %s: damage in %s (%s); made the %s anew, rebuilding it from the vault",
        store.path,
        ", ".join(parts) or "a table",
        reason,
        "file" if how == "file" else "damaged tables",
    )
    return how


def record_repair(store: Repairable, reason: str, parts: list[str], how: str) -> None:
    """Keep what was repaired, in the store and in the file (a later command's status shows it)."""
    store.last_repair = {
        "at": format_datetime(store.clock()),
        "reason": reason,
        "damaged": sorted(parts),
        "remade": how,
    }
    store.set_meta("last_repair", json.dumps(store.last_repair))


def recorded_repair(store: Repairable) -> dict[str, Any] | None:
    try:
        value = json.loads(store.get_meta("last_repair") or "null")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
