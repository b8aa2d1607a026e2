"""The one table that maps engine errors to HTTP statuses and CLI exit codes."""

from __future__ import annotations

from typing import Any

from vault_sync import errors as e

# engine error class -> (HTTP status, CLI exit code); the most specific class wins
TABLE: list[tuple[type[e.MnemovaultError], int, int]] = [
    (e.PathOutsideVault, 400, 2),
    (e.Refused, 422, 3),
    (e.InvalidInput, 400, 2),
    (e.SettingsError, 400, 2),
    (e.NotFound, 404, 4),
    (e.Ambiguous, 409, 5),
    (e.WrongState, 409, 5),
    (e.WriteConflict, 409, 6),
    (e.NoteProblem, 409, 6),
    (e.IndexReadOnly, 423, 7),  # the index file cannot be written: fix its permissions or delete it
    (e.VaultReadOnly, 423, 7),  # the vault (or a note) cannot be written: locked against us
    (e.PermissionDenied, 423, 7),
    (e.UnsafePath, 423, 7),  # a link planted where the engine writes: refused, nothing written
    (e.DiskFull, 507, 8),  # Insufficient Storage
    (e.IndexDamaged, 503, 9),  # repaired from the vault as it was found: try again
    (e.MnemovaultError, 500, 1),
]


def engine_error(exc: BaseException) -> BaseException:
    """An OSError that escaped the engine's own translation (read-only, no permission, disk
    full) as the engine error, with a message that names no file (it may be a temp file)."""
    if isinstance(exc, OSError) and not isinstance(exc, e.MnemovaultError):
        return e.storage_fault(exc, "to the vault") or exc
    return exc


def _row(exc: BaseException) -> tuple[int, int]:
    """(HTTP status, exit code) of the first class in TABLE that `exc` is; (500, 1) else."""
    exc = engine_error(exc)
    return next(((status, code) for cls, status, code in TABLE if isinstance(exc, cls)), (500, 1))


def http_status(exc: BaseException) -> int:
    return _row(exc)[0]


def exit_code(exc: BaseException) -> int:
    return _row(exc)[1]


def cli_failure(exc: BaseException) -> tuple[str, int] | None:
    """A command's one-line message and exit code for an engine error or an OSError (a folder
    we cannot create, a disk that is full); None for anything else (a bug: its traceback)."""
    if isinstance(exc, e.MnemovaultError):
        return f"error: {exc}", exit_code(exc)
    if isinstance(exc, OSError):
        return f"error: {exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}", 1
    return None


def error_body(exc: BaseException) -> dict[str, Any]:
    exc = engine_error(exc)
    code = getattr(exc, "code", "internal")
    message = str(exc) if isinstance(exc, e.MnemovaultError) else "internal error; see the daemon log"
    return {"error": {"code": code, "message": message}}
