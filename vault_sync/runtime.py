"""The long-running parts around one engine, created and owned here: the watcher that
keeps the index current, the lease that says which device runs background writes, the
embedding model with its in-memory vector cache and the query-encoding threads, and the
memos the sweep and the brief keep between calls.

Front ends (daemon, MCP over stdio, `mnemovault watch`) call these instead of wiring the
parts themselves; `status` reads their state through this object.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .dates import utc_now
from .lease import Lease

if TYPE_CHECKING:
    from .index.sync import Indexer
    from .settings import Settings
    from .vault import Layout
    from .watcher import VaultWatcher


class Runtime:
    def __init__(self, settings: "Settings", layout: "Layout", indexer: "Indexer"):
        self.settings = settings
        self.layout = layout
        self.indexer = indexer
        self.watcher: VaultWatcher | None = None
        self.lease: Lease | None = None
        self.config_dir: Path | None = None  # where this device's id is kept (see device())
        self._device: str | None = None
        self._next_lifecycle = 0.0  # monotonic time of the next full lifecycle run
        # created on first use by vault_sync.search.model / vector_cache (get_embedder, vector_cache)
        self.embedder: Any = None
        self.vectors: Any = None
        # threads that encode a query while full text is searched (search/hybrid.py)
        self._encoder: ThreadPoolExecutor | None = None
        self._encoder_lock = threading.Lock()
        # an operation inside another repairs a damaged index once, at the outer one (ops/repair.heal)
        self.healing = threading.local()
        # memos derived from this engine's index, each checked against the index's signature
        # on use (ops/sweep_memo.py, ops/brief.py): a new engine starts without them
        self.quiet_sweep: Any = None  # ops/sweep_memo.Quiet
        self.brief_inputs: Any = None  # ops/brief.BriefInputs
        # (index signature, project name folded) -> rowids of other projects' notes as a mask: search/hybrid.py
        self.project_masks: dict[Any, Any] = {}
        # (index signature, supersession successors, loops): lookups.py
        self.supersession: tuple[Any, dict[str, set[str]], list[list[str]]] | None = None

    def use_embedder(self, embedder: Any) -> None:
        """Share a model already loaded elsewhere (a bench running many vaults in one
        process, tests that reuse one loaded model); the vector cache follows the model."""
        self.embedder = embedder

    def keep_vectors(self, cache: Any) -> None:
        """The vector cache of the current model (built by vault_sync.search.vector_cache)."""
        self.vectors = cache

    def query_encoder(self) -> ThreadPoolExecutor:
        """The threads that encode queries, started on first use."""
        with self._encoder_lock:
            if self._encoder is None:
                self._encoder = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mnemovault-query")
            return self._encoder

    def keep_quiet_sweep(self, memo: Any) -> None:
        """What the last sweep that changed nothing found (None: forget it)."""
        self.quiet_sweep = memo

    def keep_project_mask(self, key: Any, mask: Any) -> None:
        """A project's mask for one index state; masks of older states are dropped."""
        self.project_masks = {k: v for k, v in self.project_masks.items() if k[0] == key[0]}
        self.project_masks[key] = mask

    def keep_brief_inputs(self, inputs: Any) -> None:
        """The brief's memories sorted two ways, for the index state they were read at."""
        self.brief_inputs = inputs

    def start_watcher(self, **options: Any) -> VaultWatcher:
        """Watch the vault: each batch of changes is synced, then `on_report` (the facade
        passes its `after_sync`: duplicate ids). `options` go to VaultWatcher (debounce,
        reconcile_interval, on_report, on_damage, ...)."""
        options.setdefault("reconcile_interval", self.settings.reconcile_interval_seconds)
        self.stop_watcher()
        from .watcher import VaultWatcher  # watchdog: not on the way to a starting daemon's first save

        watcher = VaultWatcher(self.indexer, self.layout, **options)
        self.watcher = watcher
        watcher.start()
        return watcher

    def stop_watcher(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    def know_device(self, config_dir: Path) -> None:
        """The front end's config folder: this device's id (lease.device_id) is read from it
        when first needed (a use to record, the lease)."""
        self.config_dir, self._device = config_dir, None

    def device(self) -> str:
        """This device's id; without a config folder (tests, a library caller) a fixed one."""
        if self._device is None:
            from .lease import device_id
            from .uses import DEFAULT_DEVICE

            try:
                self._device = device_id(self.config_dir) if self.config_dir is not None else DEFAULT_DEVICE
            except OSError:  # a config folder this user cannot write: uses still counted, under the default
                self._device = DEFAULT_DEVICE
        return self._device

    def hold_lease(
        self, config_dir: Path, version: str | None = None, clock: Callable[[], datetime] | None = None
    ) -> Lease:
        """The background-writes lease of this vault for this device (taken by `acquire`); its
        heartbeat file names the running `version`. `clock`: the engine's (the wall clock by default)."""
        from .lease import device_id

        self.know_device(config_dir)
        self._device = device_id(config_dir)
        self.lease = Lease(
            self.layout.root, self._device, self.settings.lease_seconds, clock=clock or utc_now, version=version
        )
        return self.lease

    def release_lease(self) -> None:
        if self.lease is not None:
            self.lease.release()

    def lifecycle_due(self) -> bool:
        """True at most once per lifecycle interval (the lease is renewed more often)."""
        now = time.monotonic()
        if now < self._next_lifecycle:
            return False
        self._next_lifecycle = now + self.settings.lifecycle_interval_seconds - 1
        return True

    def status(self) -> dict[str, Any]:
        watcher, lease = self.watcher, self.lease
        return {
            "watcher": None
            if watcher is None
            else {
                "mode": watcher.mode,
                "missed_events": watcher.missed_events,
                "last_error": watcher.last_error,
                "reconciles": watcher.reconciles,
                "last_reconcile": watcher.last_reconcile,
            },
            "lease": lease.state.to_dict() if lease is not None else None,
        }
