"""CLI commands run through the daemon when one serves the vault (it holds the index and
the loaded model); otherwise they open the engine directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .answers import plain
from .declarations import RPC_ARGS, rpc_args

# operations a CLI command may run, by name -> MemoryService method (each with its schema)
OPERATIONS = frozenset(RPC_ARGS)


def run_local(svc: Any, op: str, args: dict[str, Any]) -> Any:
    return plain(getattr(svc, op)(**rpc_args(op, args)))


_NO_DAEMON = object()
FULL_TEXT_NOTICE = (
    "full text only: meaning search needs the embedding model, which a running daemon keeps "
    "loaded; start one with `mnemovault daemon` and search again"
)


def _via_daemon(vault: Path | None, op: str, args: dict[str, Any]) -> Any:
    from .bridge_client import daemon_for

    rpc_args(op, args)  # the same checks and messages with or without a daemon
    daemon = daemon_for(vault)
    if daemon is not None:
        try:
            return daemon.rpc(op, args)
        except OSError:
            pass  # a stale bridge file (the daemon died): work directly
    return _NO_DAEMON


def call(vault: Path | None, op: str, **args: Any) -> Any:
    result = _via_daemon(vault, op, args)
    if result is not _NO_DAEMON:
        return result
    from .context import open_service

    with open_service(vault, read_only_index_ok=True) as svc:
        return run_local(svc, op, args)


SAVED_WITHOUT_MODEL_NOTICE = (
    "saved and indexed without the embedding model (loading it takes seconds): meaning search "
    "and the near-duplicate check by meaning catch up on this memory once a daemon runs "
    "(`mnemovault daemon`)"
)


def _without_model(vault: Path | None, op: str, notice: str, args: dict[str, Any]) -> tuple[Any, str | None]:
    """(result, notice): through the daemon when one runs (it holds the model); else in this
    process, never loading the model for one command (seconds and hundreds of MB), with
    `notice` when the settings have meaning search on."""
    result = _via_daemon(vault, op, args)
    if result is not _NO_DAEMON:
        return result, None
    from .context import meaning_search_on, open_service

    said = notice if meaning_search_on(vault) else None
    with open_service(vault, read_only_index_ok=True, embeddings=False) as svc:
        return run_local(svc, op, args), said


def search(vault: Path | None, **args: Any) -> tuple[Any, str | None]:
    """(results, notice): full text and meaning through a daemon; else full text here."""
    return _without_model(vault, "search", FULL_TEXT_NOTICE, args)


def save(vault: Path | None, **args: Any) -> tuple[Any, str | None]:
    """(result, notice): through a daemon; else written and indexed here at once, its vector
    left to the daemon's backfill."""
    return _without_model(vault, "save", SAVED_WITHOUT_MODEL_NOTICE, args)
