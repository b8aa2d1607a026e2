"""Finding and calling a running daemon for a vault (used by the CLI)."""

from __future__ import annotations

import http.client
import json
import os
from pathlib import Path
from typing import Any

from vault_sync import errors as e
from vault_sync.settings import named_vault

from .daemon_start import live_bridge
from .local_http import local_connection


def _error_class(code: object) -> type[e.MnemovaultError]:
    # the HTTP layer's own refusal of an oversized request is invalid input to the engine
    return e.InvalidInput if code == "too_large" else e.error_class(code)


class DaemonClient:
    def __init__(self, info: dict[str, Any]):
        self.info = info
        self.base = f"http://127.0.0.1:{info['port']}"

    def request(self, method: str, path: str, body: dict[str, Any] | None = None, timeout: float = 120.0) -> Any:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {"Authorization": f"Bearer {self.info['token']}", "Content-Type": "application/json"}
        conn = local_connection(self.info["port"], timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            status, raw = resp.status, resp.read()
        except http.client.HTTPException as exc:  # not an OSError: the daemon broke off its answer
            raise e.MnemovaultError(f"the daemon's answer was cut short ({type(exc).__name__})") from None
        finally:
            conn.close()
        if status < 400:
            return json.loads(raw.decode("utf-8"))
        try:
            err = json.loads(raw.decode("utf-8"))["error"]
        except Exception:
            raise e.MnemovaultError(f"daemon answered {status}") from None
        raise _error_class(err.get("code"))(err.get("message", "error")) from None

    def rpc(self, op: str, args: dict[str, Any]) -> Any:
        return self.request("POST", "/api/rpc", {"op": op, "args": args})["result"]


def daemon_for(vault: Path | None) -> DaemonClient | None:
    """The daemon serving this vault, if one runs (and MNEMOVAULT_NO_DAEMON is not set)."""
    if os.environ.get("MNEMOVAULT_NO_DAEMON"):
        return None
    vault = named_vault(vault)
    if vault is None:
        return None
    info = live_bridge(vault)
    return None if info is None else DaemonClient(info)
