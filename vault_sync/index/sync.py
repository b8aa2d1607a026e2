"""The one path from vault files to the index: full reconcile and per-path sync share it.

A run is a pure diff between what is on disk and what is indexed (fast path on
(mtime_ns, size), then checksum), applied in one transaction. Moves keep their row:
matched by memory id, else by checksum.
"""

from __future__ import annotations

import copy
import gc
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Iterable, Iterator

from ..note import OWNED_KEYS, Note, parse_note, unreadable_note
from ..vault import Layout, conflict_original, walk
from .rows import Stat
from .schema import DERIVED_TABLES
from .store import IndexStore

TEMP_MAX_AGE_S = 60.0
PERSONAL_OK = tuple(f"{key}:" for key in OWNED_KEYS) + ("empty note",)
MEMORY_KINDS = ("stm", "ltm", "archive")

Progress = Callable[[int, int], None]  # (notes read, notes to read)


@dataclass
class Change:
    type: str  # indexed | deleted | moved
    path: str
    id: str | None = None
    old_path: str | None = None


@dataclass
class ScoreWrite:
    """A note we rewrote where only its scores changed: the index learns it without a re-read."""

    path: str
    id: str | None
    old_checksum: str  # what the index held when we read the note
    checksum: str  # of the bytes we wrote
    mtime_ns: int
    size: int
    decay_score: float
    review_priority: float


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    moved: int = 0
    unchanged: int = 0
    problems: int = 0
    conflicts: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    id_fixes: list[str] = field(default_factory=list)
    new_ids: set[str] = field(default_factory=set)
    temp_cleaned: int = 0
    seconds: float = 0.0
    changes: list[Change] = field(default_factory=list)
    index_repair: dict[str, Any] | None = None  # damage the full check before it found and repaired

    def to_dict(self) -> dict[str, Any]:
        # not asdict(self): it would deep-copy every change (thousands after a cold index) to drop them
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("changes", "new_ids")}
        return {k: copy.deepcopy(v) if isinstance(v, (dict, list)) else v for k, v in d.items()}


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a reconcile reads the vault: the notes read stay
    alive until they are written, and each collection would walk all of them again (about
    a tenth of a cold index's time); they hold no cycles, and the few a run may make
    elsewhere (15 on a 6,000-note vault) are freed by the next collection."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Indexer:
    def __init__(
        self,
        store: IndexStore,
        layout: Layout,
        max_note_bytes: int = 2_000_000,
        on_changes: Callable[[list[Change]], None] | None = None,
        on_conflicts: Callable[[dict[str, str]], None] | None = None,
    ):
        self.store = store
        self.layout = layout
        self.max_note_bytes = max_note_bytes
        self.on_changes = on_changes
        self.on_conflicts = on_conflicts  # conflict copies seen for the first time: copy -> original
        self._root = str(layout.root) + os.sep
        self.sync_lock = threading.RLock()  # one sync run at a time: a read is never applied after a newer one

    # -- entry points --
    def reconcile(self, rebuild: bool = False, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        with self.sync_lock:
            return self._reconcile(rebuild, progress)

    def sync_paths(self, rels: Iterable[str]) -> SyncReport:
        """Bring these vault-relative paths (files or folders, present or gone) up to date."""
        with self.sync_lock:
            return self._sync_paths(rels)

    def record_scores(self, writes: list[ScoreWrite]) -> SyncReport:
        """Index score-only rewrites directly; a row that moved on meanwhile is re-read instead.

        The stat comes from the temp file we wrote (a rename keeps it), so a later edit by
        the person shows as a new (mtime, size) and is read as usual.
        """
        with self.sync_lock:
            stale: list[str] = []
            done: list[Change] = []
            with self.store.transaction() as db:
                for w in writes:
                    cur = db.execute(
                        "UPDATE notes SET decay_score=?, review_priority=?, checksum=?, mtime_ns=?, size=? "
                        "WHERE path=? AND checksum=?",
                        (w.decay_score, w.review_priority, w.checksum, w.mtime_ns, w.size, w.path, w.old_checksum),
                    )
                    if cur.rowcount == 1:
                        done.append(Change("indexed", w.path, w.id))
                    else:
                        stale.append(w.path)
            report = self._sync_paths(stale) if stale else SyncReport()
            report.updated += len(done)
            report.changes = done + report.changes
            if done and self.on_changes:
                self.on_changes(done)
            return report

    def _reconcile(self, rebuild: bool, progress: Progress | None) -> SyncReport:
        started = time.perf_counter()
        walked = walk(self.layout)
        report = SyncReport(skipped=dict(walked.skipped))
        report.temp_cleaned = self._clean_temp(walked.temp_files)
        indexed = {} if rebuild else self.store.stats_by_path()
        with _collector_paused():
            self._apply(
                walked.files, indexed, report, progress, rebuild=rebuild, conflicts=walked.conflicts, all_conflicts=True
            )
        with self.store.transaction() as db:
            self.store.replace_attachments(db, walked.attachments)
        report.seconds = time.perf_counter() - started
        self.store.set_meta("last_sync", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        return report

    def _sync_paths(self, rels: Iterable[str]) -> SyncReport:
        started = time.perf_counter()
        report = SyncReport()
        on_disk: dict[str, os.stat_result] = {}
        conflicts: dict[str, str] = {}
        scope: set[str] = set()
        prefixes: list[str] = []
        files_seen: list[str] = []  # non-Markdown files (attachments) present / gone
        files_gone: list[str] = []
        for rel in set(rels):
            rel = rel.strip("/")
            if not rel or self.layout.is_ignored(rel):
                continue
            path = self.layout.abs(rel)
            if path.is_dir() and not path.is_symlink():
                sub = walk(Layout(path, "\0", "\0", "\0"))
                on_disk.update({f"{rel}/{k}": v for k, v in sub.files.items()})
                conflicts.update({f"{rel}/{k}": f"{rel}/{v}" for k, v in sub.conflicts.items()})
                report.skipped.update({f"{rel}/{k}": v for k, v in sub.skipped.items()})
                files_seen.extend(f"{rel}/{k}" for k in sub.attachments)
                prefixes.append(rel + "/")
                continue
            if not rel.lower().endswith(".md") and not path.exists():
                prefixes.append(rel + "/")  # a folder that is gone: its rows must go too
            scope.add(rel)
            if not rel.lower().endswith(".md"):
                name = rel.rsplit("/", 1)[-1]
                if path.is_file() and not path.is_symlink() and not name.startswith("."):
                    files_seen.append(rel)
                else:
                    files_gone.append(rel)
                continue
            name = rel.rsplit("/", 1)[-1]
            original = conflict_original(name)
            if original is not None:
                if path.is_file():
                    conflicts[rel] = rel[: len(rel) - len(name)] + original
                continue
            try:
                if path.is_symlink():
                    report.skipped[rel] = "symbolic link (not followed)"
                    continue
                on_disk[rel] = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                pass
            except OSError as exc:
                report.skipped[rel] = f"cannot read: {exc.strerror or exc}"
        indexed = self.store.stats_by_path(list(scope | set(on_disk)), prefixes)
        gone_conflicts = [c for c in scope if c not in conflicts]
        self._apply(on_disk, indexed, report, None, conflicts=conflicts, drop_conflicts=gone_conflicts)
        if files_seen or files_gone or prefixes:
            with self.store.transaction() as db:
                self.store.update_attachments(db, files_seen, files_gone, prefixes)
        report.seconds = time.perf_counter() - started
        return report

    # -- the shared diff --
    def _read(self, rel: str, st: os.stat_result) -> Note | None:
        if st.st_size > self.max_note_bytes:
            return unreadable_note(rel, st.st_size, f"too large to index ({st.st_size} bytes > {self.max_note_bytes})")
        try:
            # plain strings, no Path per note; unbuffered: the whole file in one read, no buffer object
            with open(self._root + rel.replace("/", os.sep), "rb", buffering=0) as fh:
                data = fh.readall()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return unreadable_note(rel, st.st_size, f"cannot read: {exc.strerror or exc}")
        note = parse_note(rel, data)
        if self.layout.kind_of(rel) == "note" and note.problems:
            # a person's own note may use `status: draft` or be empty: only memories owe us valid keys
            note.problems = [p for p in note.problems if not p.cause.startswith(PERSONAL_OK)]
        return note

    def _apply(
        self,
        on_disk: dict[str, os.stat_result],
        indexed: dict[str, tuple[int, int]],
        report: SyncReport,
        progress: Progress | None,
        rebuild: bool = False,
        conflicts: dict[str, str] | None = None,
        all_conflicts: bool = False,
        drop_conflicts: Iterable[str] = (),
    ) -> None:
        to_read = [rel for rel, st in on_disk.items() if indexed.get(rel) != (st.st_mtime_ns, st.st_size)]
        report.unchanged += len(on_disk) - len(to_read)
        gone = [p for p in indexed if p not in on_disk]
        parsed: list[tuple[Note, Stat]] = []
        total = len(to_read)
        for i, rel in enumerate(sorted(to_read)):
            st = on_disk[rel]
            note = self._read(rel, st)
            if note is None:
                if rel in indexed:
                    gone.append(rel)
                continue
            parsed.append((note, Stat(st.st_mtime_ns, st.st_size)))
            if progress and (i % 200 == 0 or i == total - 1):
                progress(i + 1, total)
        changes: list[Change] = []
        with self.store.transaction() as db:
            if rebuild:
                for table in DERIVED_TABLES:
                    db.execute(f"DELETE FROM {table}")
            gone_rows = {}
            for p in gone:
                r = db.execute("SELECT rowid, id, checksum FROM notes WHERE path=?", (p,)).fetchone()
                if r:
                    gone_rows[p] = r
            fresh: list[tuple[Note, str, Stat]] = []  # new paths, inserted in bulk after the loop
            by_id = {r["id"]: p for p, r in gone_rows.items() if r["id"]}
            by_sum = {r["checksum"]: p for p, r in gone_rows.items() if r["checksum"]}
            for note, stat in parsed:
                kind = self.layout.kind_of(note.path)
                if note.path in indexed and not rebuild:
                    old = db.execute("SELECT checksum FROM notes WHERE path=?", (note.path,)).fetchone()
                    if old and old[0] == note.checksum:
                        self.store.touch_stat(db, note.path, stat)
                        report.unchanged += 1
                        continue
                    self.store.upsert(db, note, kind, stat)
                    report.updated += 1
                    changes.append(Change("indexed", note.path, note.fields.id))
                    continue
                source = None
                if note.fields.id and note.fields.id in by_id:
                    source = by_id.pop(note.fields.id)
                elif note.checksum and note.checksum in by_sum:
                    source = by_sum.pop(note.checksum)
                if source is None and note.fields.id and not rebuild:
                    source = self._moved_elsewhere(db, note.fields.id, note.path)
                if source is not None:
                    row = db.execute("SELECT rowid FROM notes WHERE path=?", (source,)).fetchone()
                    self.store.move_row(db, source, note.path)
                    self.store.upsert(db, note, kind, stat, reuse_rowid=row[0] if row else None)
                    gone_rows.pop(source, None)
                    report.moved += 1
                    changes.append(Change("moved", note.path, note.fields.id, old_path=source))
                    continue
                fresh.append((note, kind, stat))
                report.added += 1
                changes.append(Change("indexed", note.path, note.fields.id))
            self.store.insert_new(db, fresh)
            for p in gone_rows:
                self.store.delete_path(db, p)
                report.removed += 1
                changes.append(Change("deleted", p))
            known = {r[0] for r in db.execute("SELECT path FROM conflicts")} if conflicts else set()
            new_conflicts = {c: o for c, o in (conflicts or {}).items() if c not in known}
            if all_conflicts:
                db.execute("DELETE FROM conflicts")
            for c in drop_conflicts:
                db.execute("DELETE FROM conflicts WHERE path=?", (c,))
            for c, original in (conflicts or {}).items():
                db.execute("INSERT OR REPLACE INTO conflicts VALUES (?, ?)", (c, original))
        self.store.maybe_optimize_fts()
        report.problems = self._count("SELECT count(DISTINCT path) FROM problems")
        report.conflicts = self._count("SELECT count(*) FROM conflicts")
        # ids read in this run: ops.ids.fix_duplicate_ids checks them after the sync (the
        # indexer only reads the vault)
        report.new_ids.update(n.fields.id for n, _ in parsed if n.fields.id)
        report.changes.extend(changes)
        if changes and self.on_changes:
            self.on_changes(changes)
        if new_conflicts and self.on_conflicts:
            self.on_conflicts(new_conflicts)

    def _count(self, sql: str) -> int:
        row = self.store.one(sql)
        return int(row[0]) if row is not None else 0  # a count query always has its row

    def _moved_elsewhere(self, db: sqlite3.Connection, note_id: str, new_path: str) -> str | None:
        """A row with this id whose file is gone: the note moved and we missed the delete."""
        for r in db.execute("SELECT path FROM notes WHERE id=? AND path != ?", (note_id, new_path)).fetchall():
            path: str = r[0]
            if not self.layout.abs(path).exists():
                return path
        return None

    def _clean_temp(self, temp_files: list[str]) -> int:
        cleaned = 0
        now = time.time()
        for rel in temp_files:
            path = self.layout.abs(rel)
            try:
                st = path.stat()
                # a younger one may be a write in flight; a sweep's old copy keeps the note's
                # old mtime while it waits to be reused, but its ctime is when it was swapped out
                if now - max(st.st_mtime, st.st_ctime) > TEMP_MAX_AGE_S:
                    path.unlink()
                    cleaned += 1
            except OSError:
                pass
        return cleaned
