"""`mnemovault mcp`: MCP over stdio, with its own watcher so answers follow the vault."""

from __future__ import annotations

import sys
from pathlib import Path

from .context import open_service
from .mcp_notify import notify_review_changes
from .mcp_server import build_mcp


def run_stdio(vault: Path | None, project: str | None = None) -> None:
    """`project`: `--project` ("" for shared); None: each call's project comes from the client's roots."""
    with open_service(vault) as svc:
        for line in svc.recover():  # stdout is the protocol: say it on stderr
            print(f"mnemovault: journal: {line}", file=sys.stderr)
        svc.start_watcher()
        if svc.settings.embeddings:  # in the background, before any call: no call loads it itself
            svc.warm_model(torch_threads=1)
        try:
            mcp = build_mcp(lambda: svc, project)
            notify_review_changes(mcp, svc)
            mcp.run(transport="stdio", show_banner=False)
        finally:
            svc.runtime.stop_watcher()
