"""A save that arrives while the daemon is still starting, answered at once.

A relay that starts the daemon answers initialize and tools/list from its manifest, but the
daemon's MCP app needs fastmcp, uvicorn and a warm-up call (about three seconds) before it can
serve a tool. The engine is ready long before that (its import, the index, the sync: well
under a second). So the daemon serves `save_memory` on a small stdlib HTTP server from the
moment its engine is ready until its MCP app serves, and the relay sends a session's first
save there (bridge/mcp_proxy.py). The answer is the tool's own: the same arguments, the same
engine call, the same JSON as the MCP tool gives.

Anything this path is not sure to answer as the tool would (another argument, a value the
tool's validation would word itself) is answered 409, and the relay waits for the MCP app."""

from __future__ import annotations

import hmac
import json
import logging
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic_core

from vault_sync.errors import InvalidInput, MnemovaultError
from vault_sync.limits import ANSWER_CHARS, MAX_BODY_BYTES
from vault_sync.projects import check_project

from .declarations import rpc_args
from .errors import engine_error
from .mcp_common import tool_message
from .mcp_results import fit
from .operations import tool_answer
from .paths import early_file, private_write

if TYPE_CHECKING:
    from vault_sync.service import MemoryService

log = logging.getLogger("mnemovault.daemon")

PATH = "/early/save_memory"
# the MCP tool's arguments this path takes; any other (conversation, said_at) waits for the tool
ARGUMENTS = frozenset({"text", "tags", "title", "strength", "supersedes", "shared", "across_projects"})


def save_arguments(arguments: Any, project: Any) -> dict[str, Any]:
    """MemoryService.save's keyword arguments for a save_memory call of `project`'s session
    (None: shared); InvalidInput for anything this path leaves to the MCP tool."""
    if not isinstance(arguments, dict) or not set(arguments) <= ARGUMENTS:
        raise InvalidInput("arguments this path does not take")
    if project is not None:
        try:  # as the daemon reads the relay's header: a name no project can have is shared
            project = check_project(project)
        except InvalidInput:
            project = None
    shared = arguments.get("shared", False)
    if not isinstance(shared, bool):
        raise InvalidInput("shared is not a boolean")
    args = {k: v for k, v in arguments.items() if k != "shared"}
    args["project"] = None if shared else project
    return rpc_args("save", args)


def tool_result(svc: MemoryService, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The MCP CallToolResult of save_memory, as the MCP app would send it."""
    try:
        try:
            value = fit(tool_answer(svc.save(**kwargs)), ANSWER_CHARS)
        except OSError as exc:  # a storage fault the engine did not name (as mcp_server.run does)
            err = engine_error(exc)
            if isinstance(err, MnemovaultError):
                raise err from None
            raise
    except MnemovaultError as exc:
        return {"content": [{"type": "text", "text": tool_message(exc)}], "isError": True}
    text = pydantic_core.to_json(value, fallback=str).decode()  # fastmcp's text of a structured answer
    return {"content": [{"type": "text", "text": text}], "structuredContent": value, "isError": False}


class EarlyServer:
    """The early save endpoint on 127.0.0.1, with the daemon's token; `close` ends it and
    removes its file, so a relay finds the full daemon next."""

    def __init__(self, svc: MemoryService, token: str, root: Path):
        self.svc, self.token, self.root = svc, token, root
        self.file = early_file(root)
        handler = type("Handler", (_Handler,), {"early": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.closing = False
        self.arrived = threading.Event()  # a first request came
        self.busy = threading.Lock()  # held while a save runs
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="mnemovault-early", daemon=True
        )

    def start(self) -> None:
        self.thread.start()
        info = {"port": self.httpd.server_address[1], "token": self.token, "pid": os.getpid()}
        private_write(self.file, json.dumps(info))

    def give_way(self, wait: float = 0.15, longest: float = 10.0) -> None:
        """Let a save that is already waiting run before the daemon imports its MCP app.

        The relay that started this daemon polls for the early file, so its client's first
        save arrives within a few hundredths of a second. Run beside those imports it takes
        several times longer (they hold the interpreter lock most of the time); this waits
        `wait` seconds at most for it to come, then until it is answered."""
        if self.arrived.wait(wait) and self.busy.acquire(timeout=longest):
            self.busy.release()

    def close(self) -> None:
        self.closing = True
        try:
            if json.loads(self.file.read_text(encoding="utf-8")).get("pid") == os.getpid():
                self.file.unlink()
        except (OSError, ValueError):
            pass
        if self.thread.ident is not None:
            self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    early: EarlyServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # the daemon's log names what matters; no access log

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        auth = self.headers.get("Authorization", "")
        if not hmac.compare_digest(auth.encode("utf-8"), f"Bearer {self.early.token}".encode("utf-8")):
            self._send(401, {"error": "unauthorized"})
            return
        if self.path != PATH:
            self._send(404, {"error": "not found"})
            return
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY_BYTES:
            self._send(409, {"error": "not taken early"})
            return
        try:
            body = json.loads(self.rfile.read(length))
            kwargs = save_arguments(body.get("arguments"), body.get("project"))
        except (ValueError, AttributeError, InvalidInput):
            self._send(409, {"error": "not taken early"})  # the MCP tool answers it in its own words
            return
        if self.early.closing:
            self._send(409, {"error": "the MCP app serves now"})
            return
        started = time.perf_counter()
        with self.early.busy:
            self.early.arrived.set()
            result = tool_result(self.early.svc, kwargs)
        log.info("a save answered before the MCP app served (%.0f ms)", (time.perf_counter() - started) * 1000)
        self._send(200, result)
