"""The `mnemovault` entry point. `mnemovault mcp` (the proxy) is dispatched here before the
CLI is imported: an assistant starts it for every session and waits for it, and the full
CLI pulls in typer and the engine's modules, which the relay never needs."""

from __future__ import annotations

import sys

from .mcp_target import relay


def main() -> None:
    if not relay(sys.argv[1:]):
        from .cli import main as cli_main

        cli_main()
