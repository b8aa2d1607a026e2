"""The one table that maps engine errors to HTTP statuses and CLI exit codes."""

from __future__ import annotations

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
    (e.MnemovaultError, 500, 1),
]


def http_status(exc: BaseException) -> int:
    for cls, status, _ in TABLE:
        if isinstance(exc, cls):
            return status
    return 500


def exit_code(exc: BaseException) -> int:
    for cls, _, code in TABLE:
        if isinstance(exc, cls):
            return code
    return 1


def error_body(exc: BaseException) -> dict:
    code = getattr(exc, "code", "internal")
    message = str(exc) if isinstance(exc, e.MnemovaultError) else "internal error; see the daemon log"
    return {"error": {"code": code, "message": message}}
