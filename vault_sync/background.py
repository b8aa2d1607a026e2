"""What the daemon's background work (lifecycle sweep, embedding backfill) last did.

Kept in the index's meta table so `status` shows it from any front end, and a failure is
emitted as a `background_error` event: a failed sweep is not only a line in a log.
"""

from __future__ import annotations

import json
from typing import Any

from .dates import format_datetime
from .engine import Engine
from .errors import MnemovaultError, storage_fault

KEY = "background"
MAX_MESSAGE = 500


def state(engine: Engine) -> dict[str, Any]:
    """{"last_run": iso|None, "last_error": {"at", "task", "message"}|None}"""
    try:
        data = json.loads(engine.store.get_meta(KEY) or "{}")
    except ValueError:
        data = {}
    return {"last_run": data.get("last_run"), "last_error": data.get("last_error")}


def record(engine: Engine, task: str, error: str | None = None) -> None:
    """A run of `task` ended; with `error`, it failed (in part). A later clean run of the
    same task clears its error."""
    now = format_datetime(engine.now())
    data = state(engine)
    data["last_run"] = now
    if error:
        data["last_error"] = {"at": now, "task": task, "message": error[:MAX_MESSAGE]}
    elif (data.get("last_error") or {}).get("task") == task:
        data["last_error"] = None
    try:
        engine.store.set_meta(KEY, json.dumps(data))
    except Exception:  # noqa: BLE001 - the index itself may be what fails; the event still goes out
        pass
    if error:
        engine.emit("background_error", data["last_error"])


def failed(engine: Engine, task: str, exc: BaseException) -> None:
    exc = storage_fault(exc, "to the vault") or exc  # a read-only vault, not a temp file's name
    message = str(exc) if isinstance(exc, MnemovaultError) else f"{type(exc).__name__}: {exc}"
    record(engine, task, message)


def report_problem(report: dict[str, Any]) -> str | None:
    """A lifecycle report's failures in one line, or None when everything was written."""
    errors = list(report.get("sweep", {}).get("errors", []))
    for part in ("promote", "gc"):
        errors += [
            {"path": e.get("path"), "cause": e.get("error") or e.get("cause")}
            for e in (report.get(part) or {}).get("errors", [])
        ]
    if not errors:
        return None
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{len(errors)} note(s) could not be written: {first['path']}: {first['cause']}{more}"
