"""Live sync: the real watchdog observer, events coalesced per short window into path sets.

The OS part is only the observer; everything after it is `Indexer.sync_paths`, the same
code a full reconcile and every operation use.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from .errors import IndexDamaged
from .index.sync import Indexer, SyncReport
from .stream_loss import ClockGap, listen_for_overflow, stop_listening
from .vault import Layout

log = logging.getLogger("mnemovault.watcher")


class _Collector(FileSystemEventHandler):
    def __init__(self, watcher: "VaultWatcher"):
        self.w = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return
        if kind == "modified" and self.w.has_close_events and not event.is_directory:
            return  # inotify: the write's 'closed' follows; the first 'modified' is the empty truncate
        if kind == "modified" and event.is_directory:
            return
        paths = [str(event.src_path)]  # str on every platform we watch (bytes only for bytes paths)
        if kind == "moved":
            paths.append(str(event.dest_path))
        self.w.push(paths)


def _alive(observer: Any) -> bool:
    """The observer thread and each of its emitters (one per watch; one may die alone)."""
    return bool(observer.is_alive()) and all(e.is_alive() for e in getattr(observer, "emitters", ()))


class VaultWatcher:
    """Watches a vault and keeps the index current. A lost event stream (queue overflow, a dead
    observer, sleep and resume: stream_loss.py) reconciles at once; a periodic reconcile
    catches anything else dropped."""

    def __init__(
        self,
        indexer: Indexer,
        layout: Layout,
        debounce: float = 0.02,
        max_delay: float = 0.1,
        reconcile_interval: float = 600.0,
        on_report: Callable[[SyncReport], None] | None = None,
        health_interval: float = 5.0,
        clock_gap: float = 30.0,
        wall_clock: Callable[[], float] = time.time,
        mono_clock: Callable[[], float] = time.monotonic,
        on_damage: Callable[[str], Any] | None = None,
    ):
        self.indexer = indexer
        self.layout = layout
        self.debounce = debounce
        self.max_delay = max_delay
        self.reconcile_interval = reconcile_interval
        self.on_report = on_report
        self._pending: set[str] = set()
        self._first: float | None = None
        self._last: float = 0.0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._observer: Any = None
        self._thread: threading.Thread | None = None
        self.mode = "stopped"  # inotify/fsevents/... | polling (watch limit reached) | stopped
        self.last_error: str | None = None
        self.missed_events = 0  # changes only a reconcile found
        self.has_close_events = False
        self.health_interval = health_interval
        self.on_damage = on_damage  # the index is damaged: the service repairs it from the vault
        self.wall_clock = wall_clock
        self._clock = ClockGap(wall_clock, mono_clock, clock_gap)
        self._lost: dict[str, str] = {}  # reason -> detail, until the reconcile they call for
        self.reconciles = 0  # reconciles the watcher had to run (not the quiet periodic ones)
        self.last_reconcile: dict[str, Any] | None = None

    def push(self, abs_paths: list[str]) -> None:
        rels = []
        for p in abs_paths:
            rel = self.layout.rel(p)
            if rel and rel != "." and not self.layout.is_ignored(rel):
                rels.append(rel)
        if not rels:
            return
        with self._cond:
            now = time.monotonic()
            if self._first is None:
                self._first = now
            self._last = now
            self._pending.update(rels)
            self._cond.notify()

    def lost_events(self, reason: str, detail: str) -> None:
        """Events may have been lost: reconcile with the vault as soon as the loop can."""
        with self._cond:
            self._lost.setdefault(reason, detail)
            self._cond.notify()

    def check_stream(self) -> None:
        """Look for signs of a lost event stream (the loop calls it every health_interval)."""
        gap = self._clock.check()
        if gap is not None:
            self.lost_events(
                "clock",
                f"the wall clock moved {gap:+.0f} s against the monotonic clock "
                "(the machine slept, or the clock was set)",
            )
        observer = self._observer
        if observer is not None and not self._stop.is_set() and not _alive(observer):
            log.warning("the file observer stopped; starting a new one")
            self._stop_observer()
            self._start_observer()
            self.lost_events("observer", "the file observer had stopped and was restarted")

    def start(self) -> None:
        self._stop.clear()
        listen_for_overflow(self)
        self._start_observer()
        self._thread = threading.Thread(target=self._run, name="mnemovault-watch", daemon=True)
        self._thread.start()

    def _start_observer(self) -> None:
        observer = Observer()
        self.has_close_events = type(observer).__name__.lower().startswith("inotify")
        try:
            observer.schedule(_Collector(self), str(self.layout.root), recursive=True)
            observer.start()
            self._observer = observer
            self.mode = type(observer).__name__.replace("Observer", "").lower() or "native"
        except OSError as exc:
            # e.g. the inotify watch limit: keep working by reconciling often instead
            self.last_error = f"file watching unavailable ({exc}); falling back to a reconcile every 2 s"
            log.warning(self.last_error)
            self.mode = "polling"
            self.reconcile_interval = min(self.reconcile_interval, 2.0)

    def _stop_observer(self) -> None:
        observer, self._observer = self._observer, None
        if observer is not None:
            try:
                observer.stop()
                observer.join(timeout=5)
            except Exception:  # a dead observer may fail to stop; it is gone either way
                log.debug("stopping the observer", exc_info=True)

    def stop(self) -> None:
        self._stop.set()
        stop_listening(self)
        with self._cond:
            self._cond.notify_all()
        self._stop_observer()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.mode = "stopped"

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """True once no events are pending (tests and benchmarks use it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._cond:
                if not self._pending and not self._lost and not self._busy:
                    return True
            time.sleep(0.005)
        return False

    _busy = False

    def _run(self) -> None:
        next_reconcile = time.monotonic() + self.reconcile_interval
        next_health = time.monotonic() + self.health_interval
        while not self._stop.is_set():
            if time.monotonic() >= next_health:
                self.check_stream()
                next_health = time.monotonic() + self.health_interval
            with self._cond:
                while not self._pending and not self._lost and not self._stop.is_set():
                    timeout = min(next_reconcile, next_health) - time.monotonic()
                    if timeout <= 0:
                        break
                    self._cond.wait(timeout)
                if self._stop.is_set():
                    break
                batch: set[str] = set()
                lost, self._lost = self._lost, {}
                if lost:  # the reconcile reads every note as it is now: pending paths included
                    self._pending, self._first = set(), None
                elif self._pending:
                    now = time.monotonic()
                    quiet = now - self._last
                    waited = now - (self._first or now)
                    if quiet < self.debounce and waited < self.max_delay:
                        self._cond.wait(min(self.debounce - quiet, self.max_delay - waited))
                        continue
                    batch, self._pending, self._first = self._pending, set(), None
                self._busy = True
            try:
                if batch:
                    self._sync(batch)
                if lost:
                    self._safety_reconcile(lost)
                elif time.monotonic() >= next_reconcile:
                    self._safety_reconcile()
                    next_reconcile = time.monotonic() + self.reconcile_interval
            finally:
                with self._cond:
                    self._busy = False

    def _sync(self, batch: set[str]) -> None:
        try:
            report = self.indexer.sync_paths(batch)
            if self.on_report:  # e.g. the duplicate-id repair: it writes, so it may fail too
                self.on_report(report)
        except Exception as exc:  # the watcher must survive anything a file can do
            self.last_error = f"sync failed for {len(batch)} path(s): {exc}"
            log.exception("sync failed")
            self._damaged(exc)

    def _damaged(self, exc: Exception) -> None:
        if isinstance(exc, IndexDamaged) and self.on_damage is not None:
            try:
                self.on_damage(f"met by the watcher: {exc}")
            except Exception:
                log.exception("repairing the index failed")

    def _safety_reconcile(self, lost: dict[str, str] | None = None) -> None:
        """Reconcile with the vault: periodically, or at once when `lost` names why events
        were lost (then the pending batch is dropped too: the reconcile covers it)."""
        try:
            report = self.indexer.reconcile()
        except Exception as exc:
            self.last_error = f"safety reconcile failed: {exc}"
            log.exception("safety reconcile failed")
            self._damaged(exc)
            if lost:  # try again at the next health check
                with self._cond:
                    for reason, detail in lost.items():
                        self._lost.setdefault(reason, detail)
            return
        found = report.added + report.updated + report.removed + report.moved
        if found and self.mode != "polling":
            self.missed_events += found
            log.warning("safety reconcile found %d change(s) the watcher missed", found)
        if lost or (found and self.mode != "polling"):
            self.reconciles += 1
            reasons = sorted(lost) if lost else ["missed"]
            detail = "; ".join(lost.values()) if lost else "the periodic reconcile found changes no event reported"
            self.last_reconcile = {
                "at": datetime.fromtimestamp(self.wall_clock(), timezone.utc).isoformat(timespec="seconds"),
                "reason": ", ".join(reasons),
                "detail": detail,
                "changes": found,
            }
            if lost:
                log.warning("event stream lost (%s): reconciled with the vault, %d change(s) found", detail, found)
        if self.on_report:
            try:
                self.on_report(report)
            except Exception as exc:
                self.last_error = f"after the safety reconcile: {exc}"
                log.exception("after the safety reconcile")
