"""CLI commands run through the daemon when one serves the vault (it holds the index and
the loaded model); otherwise they open the engine directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .schemas import RPC_ARGS, rpc_args

# operations a CLI command may run, by name -> MemoryService method (each with its schema)
OPERATIONS = frozenset(RPC_ARGS)


def plain(result: Any) -> Any:
    return result.to_dict() if hasattr(result, "to_dict") else result


def run_local(svc, op: str, args: dict) -> Any:
    return plain(getattr(svc, op)(**rpc_args(op, args)))


def call(vault: Path | None, op: str, **args: Any) -> Any:
    from .bridge_client import daemon_for

    rpc_args(op, args)  # the same checks and messages with or without a daemon
    daemon = daemon_for(vault)
    if daemon is not None:
        try:
            return daemon.rpc(op, args)
        except OSError:
            pass  # a stale bridge file (the daemon died): work directly
    from .context import open_service

    with open_service(vault) as svc:
        return run_local(svc, op, args)
