"""IndexStore: the SQLite shadow index (one file per vault, outside the vault, WAL)."""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from ..dates import utc_now
from ..errors import IndexDamaged, IndexReadOnly
from ..note import Note
from . import dump, health, trigram, windows
from .rows import COL_CONTENT_HASH, COL_CONVERSATION, COL_SAID_AT, NOTE_COLUMNS, Stat, child_rows, note_row
from .schema import BULK_TABLES, SCHEMA, SCHEMA_VERSION, UPGRADES, WINDOWS_TABLE, drop_indexes

# Each single-note FTS write adds a small segment; FTS5 merges them only now and then, and
# a query reads every segment, so a run of single edits slows full-text search down. After
# this many writes (more on a big index) they are merged back into one (the README's
# Benchmarks: full-text search is timed right after the bench's edits).
FTS_OPTIMIZE_AFTER = 50
log = logging.getLogger("mnemovault.index")
# a bulk insert of at least this many notes into an empty index drops the indexes of its
# tables and makes them again after (below it, it makes no difference either way)
BULK_WITHOUT_INDEXES = 100


class IndexStore:
    """All access goes through one connection guarded by a lock (watcher + front ends)."""

    def __init__(self, path: Path | str, clock: Callable[[], datetime] = utc_now, trigrams: bool = True):
        # trigrams=False leaves the trigram index empty: only the bench, to measure its cost
        self.path = Path(path) if path != ":memory:" else path
        if isinstance(self.path, Path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.names_version = 0  # bumped when the set of paths or aliases changes (link resolution)
        self.notes_version = 0  # bumped by every change to a note's row on this connection (write_signature)
        self.fts_writes = 0  # single-note FTS writes since the FTS index was last merged
        self._fts_merge_at = FTS_OPTIMIZE_AFTER  # raised on a big index, where a merge costs more
        self.resolver_cache: tuple[int, Any] | None = None
        self.trigrams = trigrams
        self.set_aside: Path | None = None  # where a corrupt index file was moved, if it was
        self.clock = clock
        self.last_repair: dict[str, Any] | None = None  # when damage was last found and repaired, and how
        # conversation -> times of turns added, changed or removed in the open transaction:
        # their windows (index/windows.py) are rewritten before it commits
        self._windows_dirty: dict[str, set[str]] = {}
        self.window_lookups = windows.Lookups()  # search's word lookups, per write_signature
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            # the index is derived from the vault: a file SQLite cannot read is set aside and
            # rebuilt, instead of stopping every command (a lock or a missing folder is raised)
            if not isinstance(self.path, Path) or getattr(exc, "sqlite_errorcode", None) not in health.CORRUPT_CODES:
                raise
            self.db.close()
            self.set_aside = health.move_aside(self.path, clock())
            log.warning(
                "the index %s was unreadable (%s); moved it to %s and rebuilding it from the vault",
                self.path,
                exc,
                self.set_aside,
            )
            self._open()
            self.rebuilt = True
            health.record_repair(self, "unreadable when opened", ["file"], "file")
        try:
            damaged = self.check_health(full=False)
        except sqlite3.OperationalError as exc:  # busy (another process writes) or read-only: later
            log.info("index %s: not checked at open (%s)", self.path, exc)
            damaged = []
        if damaged:  # emptied here; the first reconcile (every front end runs one) reads the vault
            self.repair(damaged, "found when the index was opened")
        elif self.last_repair is None:
            self.last_repair = health.recorded_repair(self)

    def _open(self) -> None:
        if isinstance(self.path, Path):
            refuse_read_only(self.path)
        self.db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        if isinstance(self.path, Path):
            try:
                os.chmod(self.path, 0o600)  # it holds the person's notes' text
            except OSError:
                pass
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=10000")  # the CLI and the daemon may share the file
        self.db.execute("PRAGMA foreign_keys=OFF")
        self.rebuilt = self._ensure_schema()

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # -- health (index/health.py) --
    def check_health(self, full: bool = True) -> list[str]:
        """The damaged parts: 'file' or full-text tables ([] when all is well)."""
        with self.lock:
            return health.damaged_parts(self.db, self.path, full)

    def repair(self, parts: list[str], reason: str) -> str:
        """Make the damaged parts anew, empty (health.repair); the caller then reconciles."""
        with self.lock:
            return health.repair(self, parts, reason, SCHEMA)

    def reopen(self) -> None:
        """A new, empty file in place of the current one (the old one is set aside)."""
        self.db.close()
        if isinstance(self.path, Path):
            self.set_aside = health.move_aside(self.path, self.clock())
        self._open()

    def _damage(self, exc: BaseException) -> BaseException:
        """A damage error as IndexDamaged (the service repairs it); any other error as it is."""
        if isinstance(exc, sqlite3.OperationalError) and "readonly database" in str(exc):
            return IndexReadOnly(read_only_message(self.path))
        if not health.is_damage(exc):
            return exc
        log.warning("index %s: a query met damage: %s", self.path, exc)
        return IndexDamaged(f"the index is damaged ({exc})")

    def _ensure_schema(self) -> bool:
        with self.lock:
            has_meta = self.db.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone()
            version = None
            if has_meta:
                row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                version = row[0] if row else None
            if version == str(SCHEMA_VERSION):
                self.db.executescript(UPGRADES)
                self._fill_windows()
                return False
            # FTS5's shadow tables (fts_data, trigram_idx, ...) go with their virtual table
            names = [
                r[0]
                for r in self.db.execute(
                    "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' "
                    "AND name NOT LIKE 'fts_%' AND name NOT LIKE 'trigram_%' AND name NOT LIKE 'windows_%'"
                )
            ]
            for name in names:
                self.db.execute(f'DROP TABLE IF EXISTS "{name}"')
            self.db.executescript(SCHEMA)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('windows_version', ?)", (windows.WINDOWS_VERSION,))
            return bool(has_meta)

    def _fill_windows(self) -> None:
        """An index made before the conversation windows existed gets them once, without the
        rebuild a schema change means (which would drop the embedding cache too)."""
        row = self.db.execute("SELECT value FROM meta WHERE key='windows_version'").fetchone()
        if row and row[0] == windows.WINDOWS_VERSION:
            return
        self.db.executescript(WINDOWS_TABLE)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            windows.fill(self.db)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('windows_version', ?)", (windows.WINDOWS_VERSION,))
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
                if self._windows_dirty:
                    windows.refresh(self.db, self._windows_dirty)
            except BaseException as exc:
                self._windows_dirty = {}
                self.db.execute("ROLLBACK")
                self.names_version += 1  # the cached resolver may describe rows rolled back
                self.notes_version += 1
                damage = self._damage(exc)
                if damage is not exc:
                    raise damage from exc
                raise
            self._windows_dirty = {}
            self.db.execute("COMMIT")

    def _turn_changed(self, conversation: object, said_at: object) -> None:
        if conversation is not None and said_at is not None:
            self._windows_dirty.setdefault(str(conversation), set()).add(str(said_at))

    def _paths_changed(self, added: str | None = None, removed: str | None = None) -> None:
        """Derive the next cached resolver from a current one (cheap); otherwise invalidate it."""
        cached = self.resolver_cache
        self.names_version += 1
        if cached is not None and cached[0] == self.names_version - 1:
            self.resolver_cache = (self.names_version, cached[1].changed(added, removed))

    def maybe_optimize_fts(self) -> bool:
        """Merge the FTS index into one segment once enough single-note writes piled up."""
        if self.fts_writes < self._fts_merge_at:
            return False
        with self.lock:
            notes = self.db.execute("SELECT count(*) FROM notes").fetchone()[0]
            self._fts_merge_at = max(FTS_OPTIMIZE_AFTER, notes // 200)  # a big index: merge less often
            if self.fts_writes < self._fts_merge_at:
                return False
            self.db.execute("INSERT INTO fts(fts) VALUES ('optimize')")
            trigram.optimize(self.db)
            self.fts_writes = 0
            return True

    # -- meta --
    def get_meta(self, key: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
            return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- writes (call inside transaction()) --
    def upsert(self, db: sqlite3.Connection, note: Note, kind: str, stat: Stat, reuse_rowid: int | None = None) -> int:
        self.notes_version += 1
        row = note_row(note, kind, stat)
        existing = db.execute("SELECT rowid FROM notes WHERE path=?", (note.path,)).fetchone()
        rowid: int | None = int(existing[0]) if existing else reuse_rowid
        placeholders = ", ".join(f"{c}=?" for c in NOTE_COLUMNS)
        keep_fts = False
        turn = (row[COL_CONVERSATION], row[COL_SAID_AT])
        before = None
        if rowid is not None:
            old = db.execute("SELECT content_hash, conversation, said_at FROM notes WHERE rowid=?", (rowid,)).fetchone()
            # the FTS row holds exactly what content_hash covers: rewriting it costs a tokenizer pass
            keep_fts = old is not None and old[0] == row[COL_CONTENT_HASH]
            before = (old[1], old[2]) if old is not None else None
            if before is not None and before[0] is not None and before != turn:
                # it left its place in a conversation: the windows there close up, and its own
                # row goes (rewritten at commit if it is still a turn somewhere)
                windows.drop(db, rowid)
                self._turn_changed(*before)
            db.execute(f"UPDATE notes SET {placeholders} WHERE rowid=?", (*row, rowid))
            self._clear_children(db, rowid, old_path=None, keep_fts=keep_fts)
        else:
            cur = db.execute(
                f"INSERT INTO notes ({', '.join(NOTE_COLUMNS)}) VALUES ({', '.join('?' * len(NOTE_COLUMNS))})", row
            )
            assert cur.lastrowid is not None  # an INSERT always sets it
            rowid = cur.lastrowid
            self._paths_changed(added=note.path)
        db.execute("DELETE FROM problems WHERE path=?", (note.path,))
        self._insert_children(db, rowid, note, fts=not keep_fts)
        self.fts_writes += not keep_fts
        if not keep_fts or before != turn:  # its text or its place changed: the windows holding it
            self._turn_changed(*turn)
        return rowid

    def _insert_children(self, db: sqlite3.Connection, rowid: int, note: Note, fts: bool = True) -> None:
        self._write_children(db, [(rowid, note)], fts)

    def _write_children(self, db: sqlite3.Connection, items: list[tuple[int, Note]], fts: bool = True) -> None:
        """Tags, aliases, links, problems and FTS rows of many notes, one statement per table."""
        tags, aliases, links, problems, texts = child_rows(items)
        if tags:
            db.executemany("INSERT INTO tags VALUES (?, ?)", tags)
        if aliases:
            db.executemany("INSERT INTO aliases VALUES (?, ?)", aliases)
            self.names_version += 1
        if links:
            db.executemany("INSERT INTO links VALUES (?, ?, ?, ?, ?, ?, ?)", links)
        if problems:
            db.executemany("INSERT INTO problems VALUES (?, ?, ?)", problems)
        if fts:
            db.executemany("INSERT INTO fts (rowid, title, body, tags) VALUES (?, ?, ?, ?)", texts)
            if self.trigrams:
                trigram.insert(db, [(t[0], t[1], t[2]) for t in texts])

    def insert_new(self, db: sqlite3.Connection, notes: list[tuple[Note, str, Stat]]) -> list[int]:
        """Notes whose paths are not indexed yet, in bulk (a cold index is mostly this)."""
        if not notes:
            return []
        self.notes_version += 1
        last = db.execute("SELECT max(rowid) FROM notes").fetchone()[0]
        start = (last or 0) + 1
        rowids = list(range(start, start + len(notes)))
        # into an empty index (a cold build), rows go in faster without their indexes, which
        # are made again at the end from the sorted rows; same definitions, same transaction
        indexes = drop_indexes(db, BULK_TABLES) if last is None and len(notes) >= BULK_WITHOUT_INDEXES else []
        db.executemany(
            f"INSERT INTO notes (rowid, {', '.join(NOTE_COLUMNS)}) VALUES (?, {', '.join('?' * len(NOTE_COLUMNS))})",
            rows := [(rowid, *note_row(note, kind, stat)) for rowid, (note, kind, stat) in zip(rowids, notes)],
        )
        for r in rows:
            self._turn_changed(r[1 + COL_CONVERSATION], r[1 + COL_SAID_AT])
        self._write_children(db, [(rowid, note) for rowid, (note, _, _) in zip(rowids, notes)])
        for sql in indexes:
            db.execute(sql)
        self.names_version += 1
        self.resolver_cache = None
        return rowids

    def _clear_children(self, db: sqlite3.Connection, rowid: int, old_path: str | None, keep_fts: bool = False) -> None:
        for table in ("tags", "aliases", "links"):
            col = "source" if table == "links" else "note"
            cur = db.execute(f"DELETE FROM {table} WHERE {col}=?", (rowid,))
            if table == "aliases" and cur.rowcount:
                self.names_version += 1
        if not keep_fts:
            db.execute("DELETE FROM fts WHERE rowid=?", (rowid,))
            trigram.delete(db, rowid)
        if old_path:
            db.execute("DELETE FROM problems WHERE path=?", (old_path,))

    def delete_path(self, db: sqlite3.Connection, path: str) -> int | None:
        self.notes_version += 1
        row = db.execute("SELECT rowid, conversation, said_at FROM notes WHERE path=?", (path,)).fetchone()
        db.execute("DELETE FROM problems WHERE path=?", (path,))
        if not row:
            return None
        if row[1] is not None:
            windows.drop(db, row[0])
            self._turn_changed(row[1], row[2])
        self._clear_children(db, row[0], old_path=path)
        self.fts_writes += 1
        db.execute("DELETE FROM notes WHERE rowid=?", (row[0],))
        self._paths_changed(removed=path)
        return int(row[0])

    def move_row(self, db: sqlite3.Connection, old_path: str, new_path: str) -> None:
        self.notes_version += 1
        db.execute("DELETE FROM problems WHERE path=?", (old_path,))
        db.execute("UPDATE notes SET path=? WHERE path=?", (new_path, old_path))
        self._paths_changed(added=new_path, removed=old_path)

    def touch_stat(self, db: sqlite3.Connection, path: str, stat: Stat) -> None:
        self.notes_version += 1
        db.execute("UPDATE notes SET mtime_ns=?, size=? WHERE path=?", (stat.mtime_ns, stat.size, path))

    # -- reads --
    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, for several reads that must see one state (search ranks in a few)."""
        with self.lock:
            try:
                yield self.db
            except sqlite3.DatabaseError as exc:
                damage = self._damage(exc)
                if damage is exc:
                    raise
                raise damage from exc

    def change_signature(self) -> tuple[int, int]:
        """Differs after any write to the index file, ours (total_changes) or another process's
        (data_version): the vector cache reloads when it changes."""
        with self.lock:
            version = self.db.execute("PRAGMA data_version").fetchone()[0]
            return (self.db.total_changes, version)

    def write_signature(self) -> tuple[int, int]:
        """Differs after a change to any note's row here, or any commit by another process;
        unlike change_signature, not after a meta value or the attachment list (a reconcile
        that found nothing new writes both)."""
        with self.lock:
            version = self.db.execute("PRAGMA data_version").fetchone()[0]
            return (self.notes_version, version)

    def prune_embeddings(self) -> int:
        """Delete vectors no note uses any more (edited or deleted notes). Returns how many."""
        with self.transaction() as db:
            cur = db.execute("DELETE FROM embeddings WHERE content_hash NOT IN (SELECT content_hash FROM notes)")
            return cur.rowcount

    def query(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self.reading() as db:
            return db.execute(sql, params).fetchall()

    def one(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> sqlite3.Row | None:
        with self.reading() as db:
            row: sqlite3.Row | None = db.execute(sql, params).fetchone()
            return row

    def replace_attachments(self, db: sqlite3.Connection, paths: list[str]) -> None:
        """The vault's full list of non-Markdown files (a full walk)."""
        db.execute("DELETE FROM attachments")
        db.executemany("INSERT OR IGNORE INTO attachments VALUES (?, ?)", [(p, _basename(p)) for p in paths])
        self.names_version += 1
        self.resolver_cache = None

    def update_attachments(
        self, db: sqlite3.Connection, present: list[str], gone: list[str], prefixes: list[str]
    ) -> None:
        """Files seen (present) or missing (gone, and everything under gone folders) after events."""
        changed = False
        for p in gone:
            changed |= db.execute("DELETE FROM attachments WHERE path=?", (p,)).rowcount > 0
        for prefix in prefixes:
            changed |= (
                db.execute(
                    "DELETE FROM attachments WHERE path >= ? AND path < ?", (prefix, prefix + "\U0010ffff")
                ).rowcount
                > 0
            )
        for p in present:
            changed |= db.execute("INSERT OR IGNORE INTO attachments VALUES (?, ?)", (p, _basename(p))).rowcount > 0
        if changed:
            self.names_version += 1
            self.resolver_cache = None

    def attachment_paths(self) -> list[str]:
        return [r[0] for r in self.query("SELECT path FROM attachments")]

    def stats_by_path(
        self, paths: list[str] | None = None, prefixes: list[str] | None = None
    ) -> dict[str, tuple[int, int]]:
        """(mtime_ns, size) of indexed notes: all, or these paths and everything under these folders."""
        if paths is None and prefixes is None:
            return {r[0]: (r[1], r[2]) for r in self.query("SELECT path, mtime_ns, size FROM notes")}
        out: dict[str, tuple[int, int]] = {}
        paths = list(paths or [])
        for i in range(0, len(paths), 500):
            chunk = paths[i : i + 500]
            for r in self.query(
                f"SELECT path, mtime_ns, size FROM notes WHERE path IN ({','.join('?' * len(chunk))})", tuple(chunk)
            ):
                out[r[0]] = (r[1], r[2])
        for prefix in prefixes or []:
            # a range on the path index; BINARY collation compares UTF-8 bytes, so this is exact
            for r in self.query(
                "SELECT path, mtime_ns, size FROM notes WHERE path >= ? AND path < ?", (prefix, prefix + "\U0010ffff")
            ):
                out[r[0]] = (r[1], r[2])
        return out

    def note(self, path: str) -> sqlite3.Row | None:
        return self.one("SELECT rowid, * FROM notes WHERE path=?", (path,))

    def notes_with_id(self, note_id: str) -> list[sqlite3.Row]:
        return self.query("SELECT rowid, * FROM notes WHERE id=?", (note_id,))

    def tags_of(self, rowid: int) -> list[str]:
        return [r[0] for r in self.query("SELECT tag FROM tags WHERE note=? ORDER BY rowid", (rowid,))]

    def canonical_dump(self) -> dict[str, Any]:
        """Everything derived from the vault, independent of row ids and timing: for Index = f(vault)."""
        with self.lock:
            return dump.canonical(self.db)


def _basename(path: str) -> str:
    return path[path.rfind("/") + 1 :].lower()


def read_only_message(path: Any) -> str:
    return (
        f"the index file {path} cannot be written by this user (read-only): make it writable "
        f"(its owner and mode, or its folder's), or delete it and mnemovault makes it anew from "
        f"the vault; nothing in the vault was changed"
    )


def refuse_read_only(path: Path) -> None:
    """One clear error where SQLite would fail at its first write with a traceback (its own
    error met later, a mount turned read-only, is mapped too: `_damage`)."""
    if not path.is_file():  # none yet, or not a file: SQLite says what is wrong
        return
    try:  # as SQLite will: root too is refused an immutable file (chattr +i) or a read-only mount
        os.close(os.open(path, os.O_RDWR))
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise IndexReadOnly(read_only_message(path)) from None
        raise
    if not os.access(path.parent, os.W_OK):  # its journal files are made beside it
        raise IndexReadOnly(read_only_message(path))
