"""MemoryService: the one facade every front end holds (CLI, MCP, HTTP bridge, daemon).

It builds the engine (engine.py), holds the write lock around each operation that writes,
repairs a damaged index met on the way (ops/repair.py) and delegates to the operations in
ops/, search/ and transfer/, which take the engine and call each other directly. The
engine's parts stay readable here (`svc.store`, `svc.layout`, `svc.now()`...; most of them
through its base, engine_view.py) for the front ends and the tests.

Besides the service, this module is where a front end finds what it needs before a service
exists or beside one (`__all__`): creating a vault, the demo's copy of the sample vault, an
index held in memory, and the link-safe writes of its own files (the daemon's lock, the
plugin's install). Front ends import no other engine module but errors, limits, settings,
dates and projects (tests/project/test_architecture.py).
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from . import background as background_runs
from . import lookups
from .dates import utc_now
from .editor_hold import HOLD_SECONDS
from .engine import Engine, build_engine
from .engine_view import EngineView
from .events import Listener
from .facade_marks import background, internal, reads, writes
from .index.store import IndexStore
from .index.sync import Change, SyncReport
from .ops import conflicts as conflicts_op
from .ops import lifecycle, listings, moves, reading
from .ops import pin as pin_op
from .ops import relate as relate_op
from .ops import repair as repair_op
from .ops import review as review_op
from .ops import save as save_op
from .ops import status as status_op
from .ops import supersede as supersede_op
from .ops import sweep as sweep_op
from .ops import touch as touch_op
from .projects import scope_of
from .safe_files import open_lock, remove_file, replace_file
from .sample import shifted_copy
from .search import semantic
from .settings import Settings
from .vault import init_vault

Progress = Callable[[int, int], None]  # (done, total)

# what a front end may import from here besides the service (the module docstring says why)
__all__ = [
    "IndexStore",
    "MemoryService",
    "Progress",
    "init_vault",
    "open_lock",
    "remove_file",
    "replace_file",
    "shifted_copy",
]

if TYPE_CHECKING:
    from .watcher import VaultWatcher


class MemoryService(EngineView):
    def __init__(self, settings: Settings, clock: Callable[[], datetime] = utc_now, store: IndexStore | None = None):
        self.engine: Engine = build_engine(settings, clock, store)
        self.engine.writes.after_sync = self.after_sync  # repairs a sync may call for (duplicate ids)

    def _heal(self, name: str, retry: bool, call: Callable[[], Any]) -> Any:
        """Run an operation; damage to the index met on the way is repaired (ops/repair.py)."""
        return repair_op.heal(self.engine, name, retry, call)

    @internal
    def start_watcher(self, **options: Any) -> VaultWatcher:
        """Keep the index current from file events (see Runtime.start_watcher)."""
        options.setdefault("on_report", self.after_sync)
        options.setdefault("on_damage", self.check_index)
        return self.runtime.start_watcher(**options)

    @property
    @internal
    def write_lock(self) -> threading.RLock:
        """The write path's lock (read-only here; wait on it to let a write finish)."""
        return self.writes.lock

    @internal
    def close(self) -> None:
        self.store.close()

    @internal
    def now(self) -> datetime:
        return self.engine.now()

    # -- events (engine.events) --
    @internal
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self.engine.events.subscribe(listener)

    @internal
    def emit(self, kind: str, data: dict[str, Any]) -> None:
        self.engine.events.emit(kind, data)

    def _has_listeners(self) -> bool:
        return self.engine.events.has_listeners()

    def _on_changes(self, changes: list[Change]) -> None:
        self.engine.events.changes(changes)

    # -- sync --
    @reads
    def sync(self, rebuild: bool = False, progress: Progress | None = None, check: bool = False) -> dict[str, Any]:
        """Reconcile the index with the vault; the report as a plain dict (SyncReport.to_dict).
        `rebuild` works on any damage to the index; `check` (a sync a person asked for)
        checks the whole index first and repairs what it finds (ops/repair.py)."""
        return repair_op.sync(self.engine, rebuild, progress, check).to_dict()

    @internal
    def check_index(self, reason: str) -> dict[str, Any] | None:
        """Check the whole index; repair any damage from the vault (what was done, or None)."""
        return repair_op.repair_index(self.engine, reason)

    @internal
    def after_sync(self, report: SyncReport) -> None:
        """Duplicate ids a sync found are replaced (the write path and the watcher call it)."""
        repair_op.after_sync(self.engine, report)

    @internal
    def editing(self, path: str | None) -> dict[str, Any]:
        """The plugin reports the note open in the editor (None: none). Background writes
        skip it until another report, or HOLD_SECONDS without one (vault_sync/editor_hold.py)."""
        return {"path": self.editor.report(path), "hold_seconds": int(HOLD_SECONDS)}

    # -- lookups (vault_sync.lookups) --
    @internal
    def resolve(self, ref: str, kinds: tuple[str, ...] | None = None) -> sqlite3.Row:
        """An indexed note by memory id or vault-relative path."""
        return lookups.resolve(self.engine, ref, kinds)

    @internal
    def indexed(self, rel: str) -> sqlite3.Row:
        return lookups.indexed(self.engine, rel)

    @internal
    def view(self, row: sqlite3.Row) -> dict[str, Any]:
        return lookups.view(self.engine, row)

    @reads
    def thread(self, ref: str, before: int = 5, after: int = 5) -> dict[str, Any]:
        """The turns said around a memory in its conversation (ops/thread.py)."""
        from .ops.thread import thread

        return thread(self.engine, ref, before, after)

    @reads
    def note(self, ref: str) -> dict[str, Any]:
        """The note's view, with `superseded_by` (lookups.note)."""
        return lookups.note(self.engine, ref)

    # -- status (vault_sync.ops.status) --
    @reads
    def status(self) -> dict[str, Any]:
        return status_op.status(self.engine)

    @reads
    def embedding_status(self) -> dict[str, Any]:
        return status_op.embedding_status(self.engine)

    @reads
    def dangling_links(self) -> list[dict[str, Any]]:
        return status_op.dangling_links(self.engine)

    @reads
    def dangling(self, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        """Every dangling link, a page at a time (`status` carries only the count and the first 50)."""
        return status_op.dangling(self.engine, limit, offset)

    # -- the daemon's background runs (vault_sync/background.py; `status` shows the last) --
    @internal
    def background_ran(self, task: str, report: dict[str, Any] | None = None) -> str | None:
        """A background run of `task` ended: recorded; with a lifecycle `report`, its failures in
        one line (returned, None when all was written). A clean run clears the task's last error."""
        problem = background_runs.report_problem(report) if report is not None else None
        background_runs.record(self.engine, task, problem)
        return problem

    @internal
    def background_failed(self, task: str, exc: BaseException) -> None:
        """A background run of `task` raised `exc`: recorded, and emitted as a `background_error` event."""
        background_runs.failed(self.engine, task, exc)

    # -- lifecycle (each a few lines over vault_sync.ops) --
    @writes
    def recover(self) -> list[str]:
        """Finish moves a crash interrupted; call before serving."""
        return moves.recover(self.engine)

    @writes
    def sweep(self, paths: list[str] | None = None, full: bool = False) -> dict[str, Any]:
        return sweep_op.sweep(self.engine, paths, full).to_dict()

    @writes
    def save(
        self,
        text: str,
        tags: list[str] | None = None,
        title: str | None = None,
        strength: float = 1.0,
        supersedes: list[str] | None = None,
        project: str | None = None,
        across_projects: bool = False,
        conversation: str | None = None,
        said_at: Any = None,
    ) -> dict[str, Any]:
        """A new memory filed under `project` (None: shared); `conversation` and `said_at` (when
        and in which conversation it was said) become frontmatter keys (ops/save_batch.save_said)."""
        if conversation is None and said_at is None:
            return save_op.save(self.engine, text, tags, title, strength, supersedes, project, across_projects)
        from .ops.save_batch import save_said

        return save_said(
            self.engine, text, tags, title, strength, conversation, said_at, supersedes, project, across_projects
        )

    @reads
    def brief(
        self, topic: str | None = None, max_tokens: int = 800, project: str | None = None, all_projects: bool = False
    ) -> dict[str, Any]:
        """What an assistant should know, within a token budget (vault_sync.ops.brief), of `project` and shared."""
        from .ops.brief import brief

        return brief(self.engine, topic, max_tokens, project, all_projects)

    @writes
    def supersede(self, old: str, by: str, across_projects: bool = False) -> dict[str, Any]:
        """Mark memory `old` as superseded by `by` (vault_sync.ops.supersede); across projects only when asked."""
        return supersede_op.supersede(self.engine, old, by, across_projects)

    @writes
    def save_many(
        self,
        items: list[Any],
        conversation: str | None = None,
        batch_id: str | None = None,
        project: str | None = None,
        across_projects: bool = False,
    ) -> dict[str, Any]:
        """Many memories in one call (vault_sync.ops.save_batch): one model call, one index sync;
        with a `batch_id`, a retry of the same batch adds nothing twice."""
        from .ops.save_batch import save_many

        return save_many(self.engine, items, conversation, batch_id, project, across_projects)

    @writes
    def create_memory(
        self,
        text: str,
        tags: list[str] | None = None,
        title: str | None = None,
        strength: float = 1.0,
        use_count: int = 1,
        created: Any = None,
        last_used: Any = None,
        extra: dict[str, Any] | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        return save_op.create_memory(
            self.engine, text, tags, title, strength, use_count, created, last_used, extra, project=project
        )

    @writes
    def import_memories(
        self,
        fmt: str,
        path: str | Path,
        dry_run: bool = False,
        tag: str | None = None,
        progress: Callable[..., None] | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        """Import a file or folder from another memory tool (vault_sync.transfer), filed under `project`."""
        from .secret_gate import shown
        from .transfer import import_path

        result = import_path(self.engine, fmt, path, dry_run, tag, progress, project)
        for item in result.get("refusals", []):  # ids and places come from the source: printed only filtered
            item.update({k: shown(item[k]) for k in ("id", "where") if k in item})
        return result

    @reads
    def export(self, fmt: str = "jsonl", scope: str = "all") -> Iterator[str]:
        """Every memory as JSON lines or CSV, one chunk of text at a time (vault_sync.transfer.export)."""
        from .transfer.export import export

        return export(self.engine, fmt, scope)

    @reads
    def export_to(self, out: Path, fmt: str = "jsonl", scope: str = "all", force: bool = False) -> None:
        """The export written to `out`, a file outside the vault, whole or not at all; refused
        before any work when `out` may not be written (in the vault, a link, a file without `force`)."""
        from .transfer.export import check_out, export, write_out

        check_out(out, self.layout.root, force)
        write_out(out, self.layout.root, export(self.engine, fmt, scope), force=force)

    @writes
    def touch(self, ref: str, boost: bool = False) -> dict[str, Any]:
        return touch_op.touch(self.engine, ref, boost)

    @writes
    def pin(self, ref: str) -> dict[str, Any]:
        """Keep a memory as it is: its score, no due dates, never reviewed or archived on its own."""
        return pin_op.pin(self.engine, ref)

    @writes
    def unpin(self, ref: str, prior: dict[str, Any] | None = None) -> dict[str, Any]:
        """It ages from its last use again; with pin's `prior`, pin's exact undo."""
        return pin_op.unpin(self.engine, ref, prior)

    @writes
    def observe(self, refs: list[str], context_tags: list[str] | None = None) -> dict[str, Any]:
        return touch_op.observe(self.engine, refs, context_tags)

    @reads
    def review(self, limit: int = 20, project: str | None = None, all_projects: bool = True) -> list[dict[str, Any]]:
        """The review queue (every project's unless narrowed: the person's own queue)."""
        return lifecycle.review(self.engine, limit, scope_of(project, all_projects))

    @reads
    def review_page(
        self, limit: int = 20, offset: int = 0, project: str | None = None, all_projects: bool = False
    ) -> dict[str, Any]:
        return listings.review_page(self.engine, limit, offset, scope_of(project, all_projects))

    @reads
    def next_review_due(self) -> str | None:
        return listings.next_review_due(self.engine)

    @reads
    def recent(
        self,
        limit: int = 20,
        offset: int = 0,
        since: str | None = None,
        scope: str = "memories",
        project: str | None = None,
        all_projects: bool = False,
    ) -> dict[str, Any]:
        return listings.recent(self.engine, limit, offset, since, scope, scope_of(project, all_projects))

    @writes
    def promote(self, ref: str, dry_run: bool = False) -> dict[str, Any]:
        return lifecycle.promote(self.engine, ref, dry_run)

    @writes
    def promote_all(self, dry_run: bool = False) -> dict[str, Any]:
        return lifecycle.promote_all(self.engine, dry_run)

    @writes
    def gc(self, dry_run: bool = True, delete: bool = False, limit: int | None = None) -> dict[str, Any]:
        return lifecycle.gc(self.engine, dry_run, delete, limit)

    @writes
    def archive(self, ref: str, reason: str = "archived on request") -> dict[str, Any]:
        return lifecycle.archive(self.engine, ref, reason)

    @writes
    def restore(self, ref: str, prior: dict[str, Any] | None = None) -> dict[str, Any]:
        return lifecycle.restore(self.engine, ref, prior)

    @writes
    def review_memory(self, ref: str, grade: str) -> dict[str, Any]:
        """A graded review with a bounded effect (ops/review.py)."""
        return review_op.review_memory(self.engine, ref, grade)

    @writes
    def undo_review(self, ref: str, prior: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        return review_op.undo_review(self.engine, ref, prior, after)

    @writes
    def run_lifecycle(self) -> dict[str, Any]:
        return lifecycle.run_lifecycle(self.engine)

    @writes
    def relate(self, a: str, b: str, rel_type: str = "related") -> dict[str, Any]:
        return relate_op.relate(self.engine, a, b, rel_type)

    @writes
    def related(self, path: str, limit: int = 10) -> dict[str, Any]:
        """Memories related to a note (the plugin's panel, ops/related.py); vectors still
        missing are made first, hence a write."""
        from .ops.related import related

        return related(self.engine, path, limit)

    @reads
    def conflicts(self) -> list[dict[str, Any]]:
        return conflicts_op.list_conflicts(self.engine)

    @writes
    def resolve_conflict(self, path: str) -> dict[str, Any]:
        return conflicts_op.resolve_conflict(self.engine, path)

    @writes
    def settle_conflicts(self) -> list[dict[str, Any]]:
        """Merge the conflict copies of mnemovault's own making now (the daemon's lease holder)."""
        return conflicts_op.settle_conflicts(self.engine)

    @reads
    def graph(self, include_notes: bool = True) -> dict[str, Any]:
        return relate_op.graph(self.engine, include_notes)

    @reads
    def get_memory(self, refs: list[str]) -> list[dict[str, Any]]:
        """Memories (or notes) with their text, links and backlinks."""
        return reading.get_memory(self.engine, refs)

    @reads
    def read_note(self, path: str) -> dict[str, Any]:
        """Any note of the vault by path (inside the vault only), as text."""
        return reading.read_note(self.engine, path)

    # -- search (vault_sync.search) --
    @internal
    def use_embedder(self, embedder: Any) -> None:
        """Share a model already loaded elsewhere (a benchmark running many vaults in one process)."""
        self.runtime.use_embedder(embedder)

    @internal
    def get_embedder(self) -> Any:
        return semantic.embedder(self.engine)

    @reads
    def search(
        self,
        query: str,
        limit: int = 10,
        scope: str = "all",
        tags: list[str] | None = None,
        status: str | None = None,
        since_days: float | None = None,
        blend_review: bool = True,
        since: str | None = None,
        until: str | None = None,
        used_since: str | None = None,
        include_superseded: bool = False,
        include_archived: bool | None = None,
        project: str | None = None,
        all_projects: bool = False,
    ) -> dict[str, Any]:
        """`since`/`until` bound when a memory was created, `used_since` its last use: ISO dates
        or durations back from now (7d); applied before ranking. Archived memories are searched
        with scope `archive`, `include_archived`, and (unless it is false) by a time-bounded search.
        `project`'s memories and shared ones (shared only when None), or every one with `all_projects`."""
        from .search.hybrid import checked

        return checked(
            self.engine,
            query,
            limit,
            scope=scope,
            tags=tags,
            status=status,
            since_days=since_days,
            blend_review=blend_review,
            since=since,
            until=until,
            used_since=used_since,
            include_superseded=include_superseded,
            include_archived=include_archived,
            project=project,
            all_projects=all_projects,
        )

    @reads
    def search_page(self, query: str, limit: int = 10, offset: int = 0, **filters: Any) -> dict[str, Any]:
        """One page of a search (ops/listings.py)."""
        return listings.search_page(self.engine, query, limit, offset, **filters)

    @internal
    def warm_model(self, torch_threads: int | None = None) -> threading.Thread | None:
        """Start loading the embedding model in the background (None when embeddings are off):
        until it is in, search answers from full text and a save skips the vector checks."""
        from .search.model import warm_model

        return warm_model(self.engine, torch_threads)

    @internal
    def embedder_now(self) -> Any:
        """The model if it is loaded: never loads it, never waits (vault_sync.search.model)."""
        return semantic.embedder_now(self.engine)

    @reads
    def cluster(
        self, threshold: float = 0.83, project: str | None = None, all_projects: bool = False
    ) -> list[dict[str, Any]]:
        """Clusters of `project`'s memories and shared ones (all with `all_projects`), never across projects."""
        from .search.cluster import cluster

        return cluster(self.engine, threshold, project, all_projects)

    @reads
    def clusters_ready(
        self, threshold: float = 0.83, project: str | None = None, all_projects: bool = False
    ) -> dict[str, Any]:
        """Clusters of the memories whose vectors are ready; never computes one (search/cluster.py)."""
        from .search.cluster import clusters_ready

        return clusters_ready(self.engine, threshold, project, all_projects)

    @writes
    def consolidate(self, ids: list[str], apply: bool = False, leave_held: bool = False) -> dict[str, Any]:
        """`leave_held`: a job's consolidation leaves out the note open in the editor."""
        from .ops.consolidate import consolidate

        return consolidate(self.engine, ids, apply, leave_held=leave_held)

    @background
    def embed(self, progress: Progress | None = None) -> dict[str, Any]:
        """Embed every note missing a vector, then drop vectors no note uses any more."""
        from .search.embeddings import backfill, prune

        report = backfill(self.engine, progress)
        prune(self.engine)
        return report
