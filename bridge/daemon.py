"""The daemon: live sync + the automatic lifecycle on a schedule (+ bridge and MCP, see server.py)."""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path

from vault_sync.watcher import VaultWatcher

from .context import open_service
from .output import console

log = logging.getLogger("mnemovault.daemon")


def _stop_event() -> threading.Event:
    stop = threading.Event()

    def handler(signum, frame):
        stop.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return stop


def watch_forever(vault: Path | None) -> None:
    with open_service(vault) as svc:
        watcher = VaultWatcher(svc.indexer, svc.layout, reconcile_interval=svc.settings.reconcile_interval_seconds,
                           on_report=svc.after_sync)
        svc.watcher = watcher
        stop = _stop_event()
        watcher.start()
        console.print(f"watching {svc.layout.root} ({watcher.mode}); Ctrl-C to stop")
        stop.wait()
        watcher.stop()


def run_daemon(vault: Path | None) -> None:
    from .server import serve

    serve(vault)
