"""The `mnemovault` command: a thin shell over MemoryService (or the running daemon)."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    # `python -m bridge.cli`: the MCP relay and the daemon a relay starts are dispatched before
    # the imports below (they need none of them), as bridge/entry.py does
    from bridge.mcp_target import daemon, relay

    if relay(sys.argv[1:]) or daemon(sys.argv[1:]):
        raise SystemExit(0)

# isort: off
from .cli_app import app, reflow_help

# each module registers its commands on `app` when imported; `--help` lists them in this order (so not sorted)
from . import cli_index  # noqa: E402,F401  sync, sweep, status, links, watch, demo
from . import cli_memory  # noqa: E402,F401  the lifecycle commands
from . import cli_search  # noqa: E402,F401  search, embed, cluster, consolidate, conflicts
from . import cli_admin  # noqa: E402,F401  daemon, mcp, service, plugin, init
from . import cli_transfer  # noqa: E402,F401  import and export
# isort: on

__all__ = ["app", "main"]

reflow_help(app)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
