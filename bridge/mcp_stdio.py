"""`mnemovault mcp`: MCP over stdio, with its own watcher so answers follow the vault."""

from __future__ import annotations

from pathlib import Path

from vault_sync.watcher import VaultWatcher

from .context import open_service
from .mcp_server import build_mcp


def run_stdio(vault: Path | None) -> None:
    with open_service(vault) as svc:
        svc.recover()
        watcher = VaultWatcher(svc.indexer, svc.layout, reconcile_interval=svc.settings.reconcile_interval_seconds,
                           on_report=svc.after_sync)
        svc.watcher = watcher
        watcher.start()
        try:
            build_mcp(lambda: svc).run(transport="stdio", show_banner=False)
        finally:
            watcher.stop()
