"""MemoryService: the one facade every front end holds (CLI, MCP, HTTP bridge, daemon)."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .dates import utc_now
from .editor_hold import HOLD_SECONDS, EditorHold
from .errors import Ambiguous, InvalidInput, NotFound, PathOutsideVault
from .index import queries
from .index.store import IndexStore
from .links import strip_md
from .limits import REF_CHARS, check_limit, check_query, check_ref, check_refs, quote, spellings
from .index.sync import Change, Indexer, SyncReport
from .ops import conflicts as conflicts_op
from .ops import ids as ids_op
from .ops import lifecycle, moves
from .ops import relate as relate_op
from .ops import repair as repair_op
from .ops import review as review_op
from .ops import save as save_op
from .ops import status as status_op
from .ops import supersede as supersede_op
from .ops import sweep as sweep_op
from .ops import touch as touch_op
from .runtime import Runtime
from .scoring import ScoringParams
from .settings import Settings
from .vault import Layout
from .views import note_view, row_score, row_state
from .write_path import WritePath

Listener = Callable[[str, dict[str, Any]], None]
Progress = Callable[[int, int], None]  # (done, total)

if TYPE_CHECKING:
    from .lease import Lease
    from .watcher import VaultWatcher


class MemoryService:
    def __init__(self, settings: Settings, clock: Callable[[], datetime] = utc_now, store: IndexStore | None = None):
        self.settings = settings
        self.clock = clock
        self.layout = Layout.from_settings(settings)
        self.params = ScoringParams.from_settings(settings)
        self.store = store or IndexStore(settings.resolved_index_path())
        self.indexer = Indexer(self.store, self.layout, settings.max_note_bytes, on_changes=self._on_changes)
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()
        self.writes = WritePath(self.layout, self.indexer, self.emit, self.emit_scores, after_sync=self.after_sync)
        self.runtime = Runtime(self)  # watcher, lease, embedding model: created and held there
        self.editor = EditorHold(self.now)  # the note open in the editor: background writes wait (issue 16)

    @property
    def watcher(self) -> VaultWatcher | None:
        return self.runtime.watcher

    @property
    def lease(self) -> Lease | None:
        return self.runtime.lease

    # the model and its vector cache live in the runtime (read-only here); search/embeddings.py
    # creates them on first use through runtime.use_embedder / keep_vectors
    @property
    def embedder(self) -> Any:
        return self.runtime.embedder

    @property
    def vectors(self) -> Any:
        return self.runtime.vectors

    def start_watcher(self, **options: Any) -> VaultWatcher:
        """Keep the index current from file events (see Runtime.start_watcher)."""
        return self.runtime.start_watcher(**options)

    @property
    def write_lock(self) -> threading.RLock:
        """The write path's lock (read-only here; wait on it to let a write finish)."""
        return self.writes.lock

    def close(self) -> None:
        self.store.close()

    def now(self) -> datetime:
        return self.clock()

    # -- events --
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._listeners_lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._listeners_lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(kind, data)
            except Exception:  # a broken subscriber must not break an operation
                pass

    def _has_listeners(self) -> bool:
        with self._listeners_lock:
            return bool(self._listeners)

    def _on_changes(self, changes: list[Change]) -> None:
        if not self._has_listeners():
            return  # events nobody hears are not worth a query per note (a sweep writes thousands)
        for c in changes:
            if c.type == "deleted":
                self.emit("deleted", {"path": c.path})
            else:
                self.emit("indexed", {"path": c.path, "id": c.id, "old_path": c.old_path})
        for p in queries.problems_in(self.store, [c.path for c in changes]):
            self.emit("problem", {"path": p["path"], "cause": p["cause"]})

    def emit_scores(self, paths: list[str], rows: dict[str, Any] | None = None) -> None:
        """`rows`: index rows already at hand (a score depends on use_count, last_used, strength)."""
        if not self._has_listeners():
            return
        now = self.now()
        for rel in paths:
            row = rows.get(rel) if rows else None
            row = row if row is not None else self.store.note(rel)
            if row is not None:
                value = row_score(self.params, row, now)
                self.emit("score_changed", {"path": rel, "id": row["id"], "score": value, "state": row_state(self.params, row, now)})

    # -- sync --
    def sync(self, rebuild: bool = False, progress: Progress | None = None) -> dict[str, Any]:
        """Reconcile the index with the vault; the report as a plain dict (SyncReport.to_dict).
        `rebuild` works on any damage to the index (ops/repair.py)."""
        report = repair_op.rebuild(self, progress) if rebuild else self.indexer.reconcile(progress=progress)
        self.after_sync(report)
        return report.to_dict()

    def check_index(self, reason: str) -> dict[str, Any] | None:
        """Check the whole index; repair any damage from the vault (what was done, or None)."""
        return repair_op.repair_index(self, reason)

    def after_sync(self, report: SyncReport) -> None:
        """What a sync of the vault may call for in the vault itself: a copied memory's
        duplicate id is replaced (through the write path). The watcher calls it too."""
        if report.new_ids:
            with self.writes.operation():
                ids_op.fix_duplicate_ids(self, report)

    def editing(self, path: str | None) -> dict[str, Any]:
        """The plugin reports the note open in the editor (None: none). Background writes
        skip it until another report, or HOLD_SECONDS without one (vault_sync/editor_hold.py)."""
        return {"path": self.editor.report(path), "hold_seconds": int(HOLD_SECONDS)}

    # -- lookups --
    def resolve(self, ref: str, kinds: tuple[str, ...] | None = None) -> sqlite3.Row:
        """An indexed note by memory id or vault-relative path."""
        if not isinstance(ref, str) or not ref.strip():
            raise NotFound("no note given: pass a memory id or a path inside the vault")
        ref = check_ref(ref).strip()
        rows = self.store.notes_with_id(ref)
        if not rows:
            row = None
            for spelling in spellings(ref):  # an NFD path from macOS finds the NFC note, and back
                rel = self.layout.safe_rel(spelling)
                row = self.store.note(rel) or self.store.note(rel + ".md")
                if row is None and "/" not in rel:
                    row = self._by_name(rel)
                if row is not None:
                    break
            rows = [row] if row is not None else []
        if kinds:
            rows = [r for r in rows if r["kind"] in kinds] or rows
        if not rows:
            raise NotFound(f"no note with id or path {quote(ref, REF_CHARS)}")
        if len(rows) > 1:
            raise Ambiguous(f"{quote(ref, REF_CHARS)} matches {len(rows)} notes: {', '.join(r['path'] for r in rows)}")
        return rows[0]

    def indexed(self, rel: str) -> sqlite3.Row:
        """The index row of a note an operation just wrote (NotFound if it went meanwhile)."""
        row = self.store.note(rel)
        if row is None:
            raise NotFound(f"{rel} is no longer in the vault")
        return row

    def _by_name(self, name: str) -> sqlite3.Row | None:
        rows = queries.notes_named(self.store, strip_md(name).lower())
        if len(rows) > 1:
            raise Ambiguous(f"{name!r} names {len(rows)} notes: {', '.join(r['path'] for r in rows)}")
        return rows[0] if rows else None

    def view(self, row: sqlite3.Row) -> dict[str, Any]:
        problems = queries.problem_causes(self.store, row["path"])
        return note_view(self.params, row, self.store.tags_of(row["rowid"]), problems, self.now())

    def thread(self, ref: str, before: int = 5, after: int = 5) -> dict[str, Any]:
        """The turns said around a memory in its conversation (ops/thread.py)."""
        from .ops.thread import thread

        return thread(self, ref, before, after)

    def note(self, ref: str) -> dict[str, Any]:
        """The note's view, with `superseded_by`: the newest note of its chain that holds now
        (None when nothing supersedes it, or a cycle stops the walk)."""
        row = self.resolve(ref)
        view = self.view(row)
        view["superseded_by"] = supersede_op.newest(self, row["path"]) if queries.any_superseded(self.store) else None
        return view

    # -- status (vault_sync.ops.status) --
    def status(self) -> dict[str, Any]:
        return status_op.status(self)

    def embedding_status(self) -> dict[str, Any]:
        return status_op.embedding_status(self)

    def dangling_links(self) -> list[dict[str, Any]]:
        return status_op.dangling_links(self)

    def dangling(self, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        """Every dangling link, a page at a time (`status` carries only the count and the first 50)."""
        return status_op.dangling(self, limit, offset)

    # -- lifecycle (each a few lines over vault_sync.ops) --
    def recover(self) -> list[str]:
        """Finish moves a crash interrupted; call before serving."""
        with self.writes.operation():
            return moves.recover(self)

    def sweep(self, paths: list[str] | None = None, full: bool = False) -> dict[str, Any]:
        with self.writes.operation():
            return sweep_op.sweep(self, paths, full).to_dict()

    def save(self, text: str, tags: list[str] | None = None, title: str | None = None, strength: float = 1.0,
             supersedes: list[str] | None = None) -> dict[str, Any]:
        with self.writes.operation():
            return save_op.save(self, text, tags, title, strength, supersedes)

    def brief(self, topic: str | None = None, max_tokens: int = 800) -> dict[str, Any]:
        """What an assistant should know, within a token budget (vault_sync.ops.brief)."""
        from .ops.brief import brief

        return brief(self, topic, max_tokens)

    def supersede(self, old: str, by: str) -> dict[str, Any]:
        """Mark memory `old` as superseded by `by` (vault_sync.ops.supersede)."""
        with self.writes.operation():
            return supersede_op.supersede(self, old, by)

    def save_many(self, items: list[Any], conversation: str | None = None, batch_id: str | None = None) -> dict[str, Any]:
        """Many memories in one call (vault_sync.ops.save_batch): one model call, one index sync;
        with a `batch_id`, a retry of the same batch adds nothing twice."""
        from .ops.save_batch import save_many

        with self.writes.operation():
            return save_many(self, items, conversation, batch_id)

    def save_said(self, text: str, tags: list[str] | None = None, title: str | None = None, strength: float = 1.0,
                  conversation: str | None = None, said_at: Any = None, supersedes: list[str] | None = None) -> dict[str, Any]:
        """save() with optional conversation id and said_at time (frontmatter keys)."""
        from .ops.save_batch import save_said

        with self.writes.operation():
            return save_said(self, text, tags, title, strength, conversation, said_at, supersedes)

    def create_memory(self, text: str, tags: list[str] | None = None, title: str | None = None, strength: float = 1.0,
                      use_count: int = 1, created: Any = None, last_used: Any = None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        with self.writes.operation():
            return save_op.create_memory(self, text, tags, title, strength, use_count, created, last_used, extra)

    def import_memories(self, fmt: str, path: str | Path, dry_run: bool = False, tag: str | None = None,
                        progress: Callable[..., None] | None = None) -> dict[str, Any]:
        """Import a file or folder from another memory tool (vault_sync.transfer)."""
        from .secret_gate import shown
        from .transfer import import_path

        with self.writes.operation():
            result = import_path(self, fmt, path, dry_run, tag, progress)
        for item in result.get("refusals", []):  # ids and places come from the source: printed only filtered
            item.update({k: shown(item[k]) for k in ("id", "where") if k in item})
        return result

    def export(self, fmt: str = "jsonl", scope: str = "all") -> Iterator[str]:
        """Every memory as JSON lines or CSV, one chunk of text at a time (vault_sync.transfer.export)."""
        from .transfer.export import export

        return export(self, fmt, scope)

    def touch(self, ref: str, boost: bool = False) -> dict[str, Any]:
        with self.writes.operation():
            return touch_op.touch(self, ref, boost)

    def observe(self, refs: list[str], context_tags: list[str] | None = None) -> dict[str, Any]:
        with self.writes.operation():
            return touch_op.observe(self, refs, context_tags)

    def review(self, limit: int = 20) -> list[dict[str, Any]]:
        return lifecycle.review(self, limit)

    def promote(self, ref: str, dry_run: bool = False) -> dict[str, Any]:
        with self.writes.operation():
            return lifecycle.promote(self, ref, dry_run)

    def promote_all(self, dry_run: bool = False) -> dict[str, Any]:
        with self.writes.operation():
            return lifecycle.promote_all(self, dry_run)

    def gc(self, dry_run: bool = True, delete: bool = False, limit: int | None = None) -> dict[str, Any]:
        with self.writes.operation():
            return lifecycle.gc(self, dry_run, delete, limit)

    def archive(self, ref: str, reason: str = "archived on request") -> dict[str, Any]:
        with self.writes.operation():
            return lifecycle.archive(self, ref, reason)

    def restore(self, ref: str, prior: dict[str, Any] | None = None) -> dict[str, Any]:
        with self.writes.operation():
            return lifecycle.restore(self, ref, prior)

    def review_memory(self, ref: str, grade: str) -> dict[str, Any]:
        """A graded review with a bounded effect (ops/review.py)."""
        with self.writes.operation():
            return review_op.review_memory(self, ref, grade)

    def undo_review(self, ref: str, prior: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        with self.writes.operation():
            return review_op.undo_review(self, ref, prior, after)

    def run_lifecycle(self) -> dict[str, Any]:
        with self.writes.operation():
            return lifecycle.run_lifecycle(self)

    def relate(self, a: str, b: str, rel_type: str = "related") -> dict[str, Any]:
        with self.writes.operation():
            return relate_op.relate(self, a, b, rel_type)

    def conflicts(self) -> list[dict[str, Any]]:
        return conflicts_op.list_conflicts(self)

    def resolve_conflict(self, path: str) -> dict[str, Any]:
        with self.writes.operation():
            return conflicts_op.resolve_conflict(self, path)

    def graph(self, include_notes: bool = True) -> dict[str, Any]:
        return relate_op.graph(self, include_notes)

    def get_memory(self, refs: list[str]) -> list[dict[str, Any]]:
        """Memories (or notes) with their text, links and backlinks."""
        out = []
        for ref in check_refs(refs):
            row = self.resolve(ref)
            view = self.view(row)
            view["body"] = queries.body_of(self.store, row["rowid"])
            view["links"] = relate_op.outlinks(self, row)
            view["backlinks"] = relate_op.backlinks(self, row["path"])
            view["history"] = supersede_op.chain(self, row["path"])  # the fact's versions, oldest first
            out.append(view)
        return out

    def read_note(self, path: str) -> dict[str, Any]:
        """Any note of the vault by path (inside the vault only), as text."""
        rel = self.layout.safe_rel(path)
        if not rel.lower().endswith(".md"):
            rel += ".md"
        if self.layout.is_ignored(rel):
            raise PathOutsideVault(f"{quote(path, REF_CHARS)} is in a hidden folder of the vault")
        rel = next((r for r in spellings(rel) if self.layout.abs(r).is_file()), rel)  # NFD or NFC, as on disk
        target = self.layout.abs(rel)
        try:
            if not target.is_file():
                raise NotFound(f"no note at {quote(rel, REF_CHARS)}")
            size = target.stat().st_size
        except OSError as exc:
            raise NotFound(f"cannot read {quote(rel, REF_CHARS)}: {exc.strerror or exc}") from None
        if size > self.settings.max_note_bytes:
            raise InvalidInput(f"{rel} is too large to read here ({size} bytes)")
        try:
            text = target.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InvalidInput(f"{rel} is not valid UTF-8 text") from None
        row = self.store.note(rel)
        return {"path": rel, "text": text, "note": self.view(row) if row is not None else None}

    # -- search (vault_sync.search) --
    def use_embedder(self, embedder: Any) -> None:
        """Share a model already loaded elsewhere (a benchmark running many vaults in one process)."""
        self.runtime.use_embedder(embedder)

    def get_embedder(self) -> Any:
        if not self.settings.embeddings:
            return None
        from .search.embeddings import get_embedder

        return get_embedder(self)

    def search(self, query: str, limit: int = 10, scope: str = "all", tags: list[str] | None = None,
               status: str | None = None, since_days: float | None = None, blend_review: bool = True,
               since: str | None = None, until: str | None = None, used_since: str | None = None,
               include_superseded: bool = False, include_archived: bool | None = None) -> dict[str, Any]:
        """`since`/`until` bound when a memory was created, `used_since` its last use: ISO dates
        or durations back from now (7d); applied before ranking. Archived memories are searched
        with scope `archive`, `include_archived`, and (unless it is false) by a time-bounded search."""
        from .search.hybrid import search, MAX_LIMIT

        query = check_query(query)
        limit = check_limit(limit, MAX_LIMIT)
        return search(self, query, limit, scope, tags, status, since_days, blend_review,
                      since, until, used_since, include_superseded, include_archived)

    def embedder_now(self) -> Any:
        """The model if it can be used without waiting for a load (vault_sync.search.embeddings)."""
        if not self.settings.embeddings:
            return None
        from .search.embeddings import embedder_now

        return embedder_now(self)

    def semantic_neighbours(self, row: sqlite3.Row, limit: int = 3) -> list[str]:
        """Names of memories closest in meaning (empty when embeddings are off or the model is
        still loading: a promotion does not wait for it)."""
        if not self.settings.embeddings:
            return []
        try:
            from .search.embeddings import neighbours
        except ImportError:
            return []
        if self.embedder_now() is None:
            return []
        try:
            return neighbours(self, row, limit)
        except Exception:  # an extra: never fail a promotion over it
            return []

    def cluster(self, threshold: float = 0.83) -> list[dict[str, Any]]:
        from .search.cluster import cluster

        return cluster(self, threshold)

    def consolidate(self, ids: list[str], apply: bool = False, leave_held: bool = False) -> dict[str, Any]:
        """`leave_held`: a job's consolidation leaves out the note open in the editor."""
        from .search.consolidate import consolidate

        with self.writes.operation():
            return consolidate(self, ids, apply, leave_held=leave_held)

    def embed(self, progress: Progress | None = None) -> dict[str, Any]:
        """Embed every note missing a vector, then drop vectors no note uses any more."""
        from .search.embeddings import backfill, prune

        report = backfill(self, progress)
        prune(self)
        return report


# damage to the index met by these is repaired from the vault (ops/repair.py); reads then
# run again, the rest report it (the vault may already hold their change)
for _name in ("sync", "search", "brief", "status", "note", "thread", "review", "graph", "get_memory", "read_note", "conflicts"):
    setattr(MemoryService, _name, repair_op.healing(retry=True)(getattr(MemoryService, _name)))
for _name in ("save", "save_many", "save_said", "touch", "observe", "supersede", "promote", "promote_all", "gc", "archive",
              "restore", "relate", "resolve_conflict", "sweep", "run_lifecycle", "import_memories"):
    setattr(MemoryService, _name, repair_op.healing(retry=False)(getattr(MemoryService, _name)))
