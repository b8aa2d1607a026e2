"""`mnemovault watch` (live sync in the foreground) and `mnemovault daemon` (see server.py)."""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from types import FrameType

from .context import open_service
from .output import console

log = logging.getLogger("mnemovault.daemon")


def _stop_event() -> threading.Event:
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return stop


def watch_forever(vault: Path | None) -> None:
    with open_service(vault) as svc:
        stop = _stop_event()
        watcher = svc.start_watcher()
        console.print(f"watching {svc.layout.root} ({watcher.mode}); Ctrl-C to stop")
        stop.wait()
        svc.runtime.stop_watcher()


def run_daemon(vault: Path | None) -> None:
    from .server import serve

    serve(vault)
