"""Which vault a plain `mnemovault mcp` call relays to: read from the arguments before the
CLI is imported (bridge/entry.py), and again by the CLI's `mcp` command."""

from __future__ import annotations

import os
import sys


def proxy_project(argv: list[str]) -> str | None:
    """The `--project NAME` of an `mcp` call ("" for shared); None when not given."""
    project = None
    rest = list(argv[1:])
    while rest:
        arg = rest.pop(0)
        if arg == "--project" and rest:
            project = rest.pop(0)
        elif arg.startswith("--project="):
            project = arg.split("=", 1)[1]
    return project


def proxy_vault(argv: list[str]) -> str | None:
    """The vault of a plain `mcp [--vault V] [--project P]` call; None when the full CLI must
    handle it (--in-process, --help, anything else, no vault, MNEMOVAULT_NO_DAEMON)."""
    if not argv or argv[0] != "mcp" or os.environ.get("MNEMOVAULT_NO_DAEMON"):
        return None
    vault = os.environ.get("MNEMOVAULT_VAULT") or None
    rest = argv[1:]
    while rest:
        arg = rest.pop(0)
        if arg in ("--vault", "-v") and rest:
            vault = rest.pop(0)
        elif arg.startswith("--vault="):
            vault = arg.split("=", 1)[1]
        elif arg == "--project" and rest:
            rest.pop(0)  # proxy_project reads it
        elif arg.startswith("--project="):
            pass
        else:
            return None
    if not vault or not os.path.isdir(os.path.expanduser(vault)):
        return None  # the CLI gives the settings error
    return vault


def relay(argv: list[str]) -> bool:
    """Run the MCP relay for a plain `mcp` call (True once it ends); False: the CLI handles it."""
    vault = proxy_vault(argv)
    if vault is None:
        return False
    from .mcp_proxy import run_proxy

    try:
        run_proxy(vault, proxy_project(argv))
    except KeyboardInterrupt:
        sys.exit(130)
    return True
