"""The one way the engine changes the vault: under the write lock, compare-and-swap the
file (or move it), re-index the touched paths, announce the change.

Operations describe what to change (a transform, new bytes, a move) and call these
methods; none of them takes the lock, syncs the index or emits events by hand. The lock
is reentrant: the facade holds it around a whole operation (`MemoryService` methods that
write), and every primitive here takes it again, so an operation called directly is safe.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from .faults import writing
from .rename import rename_noreplace
from .writer import NewFiles, WriteResult, create_exclusive, flush_batch, update_file

if TYPE_CHECKING:
    from .index.sync import Indexer, ScoreWrite, SyncReport
    from .vault import Layout

Emit = Callable[[str, dict[str, Any]], None]
EmitScores = Callable[..., None]


class NewNotes:
    """The new notes of one batch (WritePath.creating): each created whole, never over an
    existing file (FileExistsError), without a per-note fsync; `paths` in creation order."""

    def __init__(self, layout: "Layout"):
        self.layout = layout
        self.paths: list[str] = []
        self._files = NewFiles()
        self._folders: set[str] = set()

    def create(self, rel: str, data: bytes) -> None:
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if folder not in self._folders:
            with writing(f"{folder}/"):
                self.layout.folder_for(rel)  # made, never through a linked folder
            self._folders.add(folder)
        with writing(rel):
            self._files.create(self.layout.abs(rel), data)
        self.paths.append(rel)

    def flush(self) -> None:
        """One flush to disk for the whole batch (an fsync per note made 10,000 notes take 100 s)."""
        self._files.close()
        if self.paths:
            flush_batch({self.layout.abs(p).parent for p in self.paths})


class WritePath:
    def __init__(
        self,
        layout: "Layout",
        indexer: "Indexer",
        emit: Emit,
        emit_scores: EmitScores,
        after_sync: Callable[["SyncReport"], None] | None = None,
    ):
        self.layout = layout
        self.indexer = indexer
        self.after_sync = after_sync  # repairs a sync may call for (duplicate ids), run under the lock
        self._emit = emit
        self._emit_scores = emit_scores
        self.lock = threading.RLock()  # one engine operation writes at a time
        self._pending: list[str] | None = None  # paths written inside `together`, not yet indexed

    @contextmanager
    def operation(self) -> Iterator[None]:
        """Hold the write lock for a whole operation (several writes that belong together)."""
        with self.lock:
            yield

    @contextmanager
    def together(self) -> Iterator[None]:
        """Writes that the index must see as one change (a move: the old path, the new one,
        the links rewritten elsewhere, so the moved note is never indexed twice): inside,
        the primitives record their paths, and they are synced once at the end, after a
        failure too (what reached the disk is indexed)."""
        with self.lock:
            if self._pending is not None:  # already inside: the outer block syncs
                yield
                return
            self._pending = []
            try:
                yield
            finally:
                rels, self._pending = self._pending, None
                if rels:
                    self._sync(rels)

    def _touched(self, rels: list[str]) -> None:
        if self._pending is not None:
            self._pending += rels
        else:
            self._sync(rels)

    def update(
        self, rel: str, transform: Callable[[bytes], bytes | None], expected: bytes | None = None, scores: bool = False
    ) -> WriteResult:
        """Compare-and-swap one note (`transform` re-applied to newer bytes), then re-index it.
        `scores`: announce its new score too."""
        with self.lock:
            path = self.layout.abs(rel)
            self.layout.check_parent(rel)  # a folder replaced by a link since it was indexed
            result = update_file(path, path.read_bytes() if expected is None else expected, transform)
            self._touched([rel])
            if scores:
                self._emit_scores([rel])
            return result

    def create(self, rel: str, data: bytes) -> None:
        """A new note, never over an existing file (FileExistsError), then indexed."""
        with self.lock:
            with writing(rel):
                self.layout.folder_for(rel)
            create_exclusive(self.layout.abs(rel), data)
            self._touched([rel])

    @contextmanager
    def creating(self) -> Iterator[NewNotes]:
        """Many new notes at once (a batch save, an import): `batch.create(rel, data)` inside
        the block; at its end, after a failure too, one flush to disk and ONE index sync of
        every note created (what reached the disk is indexed). Work that must see the index
        without the new notes (a near-duplicate check) goes inside the block."""
        with self.lock:
            batch = NewNotes(self.layout)
            try:
                yield batch
            finally:
                try:
                    batch.flush()
                finally:
                    if batch.paths:
                        self._touched(batch.paths)

    def rename(self, src_rel: str, dst_rel: str) -> None:
        """A plain rename inside the vault (the destination's folder made), both paths re-indexed."""
        with self.lock:
            dst = self.layout.abs(dst_rel)
            self.layout.check_parent(src_rel)
            self.layout.folder_for(dst_rel)
            self.layout.abs(src_rel).rename(dst)
            self._touched([src_rel, dst_rel])

    def move(self, src_rel: str, dst_rel: str, replace: bool = False) -> None:
        """Move a note to a new path, never over another file (FileExistsError) unless
        `replace` (recovery settling a move a crash split in two); both paths re-indexed.
        The move journal is the operation's (ops/journal.py): it is written before this."""
        with self.lock:
            src, dst = self.layout.abs(src_rel), self.layout.abs(dst_rel)
            self.layout.check_parent(src_rel)
            self.layout.folder_for(dst_rel)
            if replace:
                os.replace(src, dst)
            else:
                rename_noreplace(src, dst)  # never clobbers a person's note of the same name
            self._touched([src_rel, dst_rel])

    def synced(self, rels: Iterable[str]) -> "SyncReport":
        """Re-index paths an operation changed by its own means (a journalled move, a batch write,
        a file found gone)."""
        with self.lock:
            rels = list(rels)
            if self._pending:  # inside `together`: what it has recorded so far goes too
                rels, self._pending = self._pending + rels, []
            return self._sync(rels)

    def _sync(self, rels: Iterable[str]) -> "SyncReport":
        report = self.indexer.sync_paths(list(dict.fromkeys(rels)))
        if self.after_sync is not None:
            self.after_sync(report)
        return report

    def scores_recorded(self, writes: list["ScoreWrite"]) -> None:
        """Index score-only rewrites without a re-read (the sweep's fast path)."""
        with self.lock:
            report = self.indexer.record_scores(writes)  # a row that moved on is re-read
            if self.after_sync is not None:
                self.after_sync(report)

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        """Announce what an operation did (promoted, archived, restored, consolidated)."""
        self._emit(kind, data)

    def emit_scores(self, rels: list[str], rows: dict[str, Any] | None = None) -> None:
        self._emit_scores(rels, rows=rows)
