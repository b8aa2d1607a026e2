"""The relay's side of a save sent while the daemon starts (the daemon's side: early_server.py).

Standard library only, as the relay is: the daemon names its early save server in a file beside
its bridge file until its MCP app serves; a save posted there gets the MCP tool's own answer."""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path
from typing import Any, Callable

from .daemon_start import pid_alive
from .local_http import local_connection
from .paths import early_file

PATH = "/early/save_memory"  # early_server.PATH (not imported: that module loads the engine)
PROXY_ERROR = -32000


class _Passed:
    """The early server left the call to the MCP app."""


_PASSED = _Passed()


def request_of(
    message: dict[str, Any], project: str | None, init_params: dict[str, Any] | None
) -> dict[str, Any] | None:
    """What to ask the early server for a client's `message`: a save_memory call, in a session
    whose project is known here (the relay's `--project`, or a client without roots: shared);
    None otherwise (only the MCP app asks a client for its roots)."""
    params = message.get("params")
    caps = (init_params or {}).get("capabilities")
    asks_roots = project is None and isinstance(caps, dict) and caps.get("roots") is not None
    if (
        message.get("method") != "tools/call"
        or "id" not in message
        or not isinstance(params, dict)
        or params.get("name") != "save_memory"
        or asks_roots
    ):
        return None
    return {"arguments": params.get("arguments", {}), "project": project or None}


def ask(
    vault: Path, request: dict[str, Any], done: Callable[[], bool], wait: float, timeout: float
) -> dict[str, Any] | None:
    """The JSON-RPC `result` (or `error`) of `request` ({arguments, project}) from the early
    save server, waiting up to `wait` seconds for it to appear; None when the MCP app should
    answer instead: `done()` turned true (it serves, or the session closed) or the server passed."""
    body = json.dumps(request).encode("utf-8")
    deadline = time.monotonic() + wait
    while not done() and time.monotonic() < deadline:
        info = _read(early_file(vault))
        if info is not None and isinstance(info.get("port"), int) and pid_alive(info.get("pid") or -1):
            answer = _post(info, body, timeout)
            if isinstance(answer, _Passed):
                return None
            if answer is not None:
                return answer
        time.sleep(0.02)
    return None


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _post(info: dict[str, Any], body: bytes, timeout: float) -> dict[str, Any] | _Passed | None:
    """The answer, _PASSED, or None when the server is not there (any more)."""
    conn = local_connection(info["port"], timeout=timeout)
    try:
        conn.connect()
    except OSError:
        conn.close()
        return None  # it just closed: the MCP app is about to serve
    headers = {"Authorization": f"Bearer {info.get('token')}", "Content-Type": "application/json"}
    try:
        conn.request("POST", PATH, body, headers)
        resp = conn.getresponse()
        data = resp.read()
    except (OSError, http.client.HTTPException) as exc:
        # it had the save and went away: saved or not, as for a call lost in flight
        message = (
            f"the mnemovault daemon stopped during this call ({exc or type(exc).__name__}); "
            "the next call reconnects (restarting it if needed): try again"
        )
        return {"error": {"code": PROXY_ERROR, "message": message}}
    finally:
        conn.close()
    if resp.status != 200:
        return _PASSED
    try:
        result = json.loads(data)
    except ValueError:
        return _PASSED
    return {"result": result} if isinstance(result, dict) else _PASSED
