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
import socketserver
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_sync import limits as L
from vault_sync.errors import InvalidInput, MnemovaultError
from vault_sync.limits import ANSWER_CHARS, MAX_BODY_BYTES
from vault_sync.projects import check_project

from .answers import tool_answer
from .errors import engine_error
from .mcp_common import tool_message
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
    return _checked(args)


def _checked(args: dict[str, Any]) -> dict[str, Any]:
    """The save's arguments as bridge/schemas.py's SaveArgs gives them, checked here without
    pydantic (it and the models are a good part of what a daemon's start waits for):
    anything SaveArgs would refuse, or that this is not sure of, is InvalidInput (a test
    holds the two together)."""
    text, tags, title = args.get("text"), args.get("tags"), args.get("title")
    strength, refs, project = args.get("strength", 1.0), args.get("supersedes"), args.get("project")
    across = args.get("across_projects", False)
    if not (
        _text(text, 0, L.MAX_TEXT_CHARS)
        and (tags is None or _texts(tags, 0, L.MAX_TAGS, 0, L.MAX_TAG_CHARS))
        and (title is None or _text(title, 1, L.MAX_TITLE_CHARS))
        and type(strength) in (int, float)
        and 0.0 <= strength <= 2.0  # NaN is not; infinity is out of range
        and (refs is None or _texts(refs, 1, L.MAX_REFS, 1, L.MAX_REF_CHARS))
        and (project is None or _text(project, 0, 100))
        and type(across) is bool
    ):
        raise InvalidInput("a value this path leaves to the MCP tool")
    return {
        "text": text,
        "tags": tags,
        "title": title,
        "strength": float(strength),
        "supersedes": refs,
        "project": project,
        "across_projects": across,
    }


def _text(value: Any, shortest: int, longest: int) -> bool:
    return type(value) is str and shortest <= len(value) <= longest


def _texts(value: Any, fewest: int, most: int, shortest: int, longest: int) -> bool:
    return type(value) is list and fewest <= len(value) <= most and all(_text(v, shortest, longest) for v in value)


def tool_result(svc: MemoryService, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The MCP CallToolResult of save_memory, as the MCP app would send it."""
    try:
        try:
            value = tool_answer(svc.save(**kwargs))
            if len(json.dumps(value)) > ANSWER_CHARS:  # mcp_results.answer_chars; a save's answer is small
                from .mcp_results import fit

                value = fit(value, ANSWER_CHARS)
        except OSError as exc:  # a storage fault the engine did not name (as mcp_server.run does)
            err = engine_error(exc)
            if isinstance(err, MnemovaultError):
                raise err from None
            raise
    except MnemovaultError as exc:
        return {"content": [{"type": "text", "text": tool_message(exc)}], "isError": True}
    text = json_text(value)
    return {"content": [{"type": "text", "text": text}], "structuredContent": value, "isError": False}


def json_text(value: Any) -> str:
    """fastmcp's text of a structured answer (pydantic_core.to_json), written by the standard
    library where the two agree: every value but a float that either would write with an
    exponent (1e-05 against 1e-5), which goes to pydantic_core."""
    if _plain_floats(value):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    import pydantic_core

    return pydantic_core.to_json(value, fallback=str).decode()


def _plain_floats(value: Any) -> bool:
    if isinstance(value, float):
        return value == 0.0 or 1e-4 <= abs(value) < 1e15
    if isinstance(value, dict):
        return all(_plain_floats(v) for v in value.values())
    if isinstance(value, list):
        return all(_plain_floats(v) for v in value)
    return True


class EarlyServer:
    """The early save endpoint on 127.0.0.1, with the daemon's token; `close` ends it and
    removes its file, so a relay finds the full daemon next."""

    def __init__(self, svc: MemoryService, token: str, root: Path):
        self.svc, self.token, self.root = svc, token, root
        self.file = early_file(root)
        handler = type("Handler", (_Handler,), {"early": self})
        self.httpd = _Server(("127.0.0.1", 0), handler)
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


REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
}
MAX_LINE = 8192  # a request line or a header line
MAX_HEADERS = 64


class _Server(socketserver.ThreadingTCPServer):
    # not http.server's: it imports the email package and looks up this host's name (a DNS
    # query) before it listens, which a relay's first save waited for; one request per connection
    daemon_threads = True
    allow_reuse_address = False


class _Handler(socketserver.StreamRequestHandler):
    early: EarlyServer
    timeout = 60  # a client that stops mid-request does not hold a thread for ever

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        head = (
            f"HTTP/1.1 {status} {REASONS[status]}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        )
        self.wfile.write(head.encode("ascii") + data)

    def _request(self) -> tuple[str, str, dict[str, str]] | None:
        """(method, path, headers by lower-case name) of the request read; None: malformed."""
        line = self.rfile.readline(MAX_LINE + 1)
        parts = line.decode("latin-1").split()
        if len(line) > MAX_LINE or len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            return None
        headers: dict[str, str] = {}
        for _ in range(MAX_HEADERS + 1):
            raw = self.rfile.readline(MAX_LINE + 1)
            if raw in (b"\r\n", b"\n"):
                return parts[0], parts[1], headers
            name, colon, value = raw.decode("latin-1").partition(":")
            if len(raw) > MAX_LINE or not colon or not raw.endswith(b"\n"):
                return None
            headers[name.strip().lower()] = value.strip()
        return None

    def handle(self) -> None:
        try:
            request = self._request()
            if request is None:
                self._send(400, {"error": "bad request"})
            else:
                self._answer(*request)
        except OSError:
            pass  # the client went away

    def _answer(self, method: str, path: str, headers: dict[str, str]) -> None:
        if method != "POST":
            self._send(405, {"error": "method not allowed"})
            return
        auth = headers.get("authorization", "")
        if not hmac.compare_digest(auth.encode("utf-8"), f"Bearer {self.early.token}".encode("utf-8")):
            self._send(401, {"error": "unauthorized"})
            return
        if path != PATH:
            self._send(404, {"error": "not found"})
            return
        try:
            length = int(headers.get("content-length") or "0")
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
