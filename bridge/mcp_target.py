"""Which vault a plain `mnemovault mcp` call relays to: read from the arguments before the
CLI is imported (bridge/entry.py), and again by the CLI's `mcp` command."""

from __future__ import annotations

import os
import sys
from pathlib import Path


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
    from .daemon_start import prestart
    from .paths import not_a_vault

    folder = Path(vault).expanduser().resolve()  # as run_proxy resolves it
    if not_a_vault(folder) is None:  # else run_proxy says what is wrong, and starts nothing
        prestart(folder)
    from .mcp_proxy import run_proxy

    try:
        run_proxy(vault, proxy_project(argv))
    except KeyboardInterrupt:
        sys.exit(130)
    return True


def daemon_vault(argv: list[str]) -> tuple[str, float] | None:
    """(vault, idle exit) of the `daemon --vault V --idle-exit N` a relay starts; None for any
    other command line (the full CLI handles it: options, help, checks)."""
    if not argv or argv[0] != "daemon" or len(argv) != 5:
        return None
    options = dict(zip(argv[1::2], argv[2::2]))
    if set(options) != {"--vault", "--idle-exit"}:
        return None
    try:
        idle_exit = float(options["--idle-exit"])
    except ValueError:
        return None
    if not idle_exit >= 0:
        return None
    return options["--vault"], idle_exit


def daemon(argv: list[str]) -> bool:
    """Serve a relay's `daemon` command without loading the CLI (about 0.4 s: the relay's first
    save waits for it); False: the CLI handles it."""
    found = daemon_vault(argv)
    if found is None:
        return False
    from .errors import cli_failure
    from .server import serve

    try:
        serve(Path(found[0]), None, False, found[1])
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        failure = cli_failure(exc)
        if failure is None:
            raise
        print(failure[0], file=sys.stderr, flush=True)
        sys.exit(failure[1])
    return True
