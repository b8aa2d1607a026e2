"""The HTTP bridge: JSON endpoints for the Obsidian plugin and the CLI, an SSE event stream,
and the MCP endpoint, all behind one guard (token, Host, Origin). 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import hmac
import inspect
import json
import logging
from typing import Any, Callable

from anyio import to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

from vault_sync.errors import InvalidInput, MnemovaultError

from .client import OPERATIONS, plain
from .errors import error_body, http_status
from .http_plugin import plugin_routes

log = logging.getLogger("mnemovault.bridge")
ALLOWED_ORIGIN = "app://obsidian.md"
PING_SECONDS = 15.0


class Guard:
    """ASGI middleware: every request needs the token; foreign Host or Origin is refused."""

    def __init__(self, app, token: str, port_ref: Callable[[], int]):
        self.app = app
        self.token = token.encode("utf-8")
        self.port_ref = port_ref

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] != "http":  # no websockets (or anything else) past the guard
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        port = self.port_ref()
        host = headers.get("host", "")
        if host not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            return await _deny(send, 403, "forbidden", "requests must be addressed to 127.0.0.1 on the bridge's port")
        origin = headers.get("origin")
        if origin is not None and origin != ALLOWED_ORIGIN:
            return await _deny(send, 403, "forbidden", f"origin {origin!r} is not allowed")
        auth = headers.get("authorization", "")
        given = auth[7:].strip().encode("utf-8") if auth.lower().startswith("bearer ") else b""
        if not given or not hmac.compare_digest(given, self.token):
            return await _deny(send, 401, "unauthorized", "missing or wrong token (see the bridge file in your config folder)")
        return await self.app(scope, receive, send)


async def _deny(send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(json.loads(json.dumps(data, default=str)), status_code=status)


async def _run(fn: Callable[[], Any]) -> JSONResponse:
    """Engine calls run in a worker thread; engine errors map through the one table."""
    try:
        return _json(plain(await to_thread.run_sync(fn)))
    except MnemovaultError as exc:
        return _json(error_body(exc), http_status(exc))
    except Exception as exc:  # noqa: BLE001 - the daemon must answer, not die
        log.exception("request failed")
        return _json(error_body(exc), 500)


async def _body(request: Request) -> dict:
    raw = await request.body()
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise InvalidInput("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise InvalidInput("the request body must be a JSON object")
    return data


def _ref(body: dict) -> str:
    ref = body.get("ref") or body.get("id") or body.get("path")
    if not isinstance(ref, str) or not ref:
        raise InvalidInput("give the note as `ref` (its id or its path in the vault)")
    return ref


def build_app(svc, token: str, port_ref: Callable[[], int], mcp_app=None, state: dict | None = None) -> Any:
    state = state if state is not None else {}

    def endpoint(make: Callable[[dict, Request], Callable[[], Any]], method: str = "POST"):
        async def handler(request: Request) -> Response:
            try:
                body = await _body(request) if method == "POST" else dict(request.query_params)
                fn = make(body, request)
            except MnemovaultError as exc:
                return _json(error_body(exc), http_status(exc))
            return await _run(fn)

        return handler

    def status_fn(body, request):
        def go():
            out = svc.status()
            # `api`: the plugin refuses a daemon whose bridge API differs (docs/bridge-api.md)
            out["daemon"] = {"pid": state.get("pid"), "started": state.get("started"), "version": _version(), "api": 1}
            return out
        return go

    def note_fn(body, request):
        path = body.get("path") or body.get("ref")
        if not path:
            raise InvalidInput("give the note's `path`")
        return lambda: svc.note(path)

    def promote_fn(body, request):
        dry = bool(body.get("dry_run", False))
        if body.get("auto"):
            return lambda: svc.promote(None, dry)
        return lambda: svc.promote(_ref(body), dry)

    def search_fn(body, request):
        q = body.get("q", "")
        limit = _int(body.get("limit", 10), "limit")
        scope = body.get("scope", "all")
        return lambda: svc.search(q, limit=limit, scope=scope)

    def rpc_fn(body, request):
        op, args = body.get("op"), body.get("args") or {}
        if op not in OPERATIONS or not isinstance(args, dict):
            raise InvalidInput(f"unknown operation {op!r}")
        method = getattr(svc, op)
        try:
            inspect.signature(method).bind(**args)
        except TypeError as exc:
            raise InvalidInput(f"{op}: {exc}") from None
        return lambda: {"result": plain(method(**args))}

    async def events_endpoint(request: Request) -> Response:
        # an async def: Starlette runs a plain function (e.g. a lambda) in a thread and
        # would never await the coroutine it returns
        return await events(svc, request)

    routes = [
        Route("/api/status", endpoint(status_fn, "GET"), methods=["GET"]),
        Route("/api/note", endpoint(note_fn, "GET"), methods=["GET"]),
        Route("/api/touch", endpoint(lambda b, r: (lambda: svc.touch(_ref(b), bool(b.get("boost", False))))), methods=["POST"]),
        Route("/api/promote", endpoint(promote_fn), methods=["POST"]),
        Route("/api/archive", endpoint(lambda b, r: (lambda: {"archived": [svc.archive(_ref(b))]})), methods=["POST"]),
        Route("/api/restore", endpoint(lambda b, r: (lambda: {"restored": [svc.restore(_ref(b))]})), methods=["POST"]),
        Route("/api/gc", endpoint(lambda b, r: (lambda: svc.gc(dry_run=bool(b.get("dry_run", True))))), methods=["POST"]),
        Route("/api/review", endpoint(lambda b, r: (lambda: {"items": svc.review(_int(b.get("limit", 20), "limit"))}), "GET"), methods=["GET"]),
        Route("/api/search", endpoint(search_fn, "GET"), methods=["GET"]),
        Route("/api/sync", endpoint(lambda b, r: (lambda: svc.sync().to_dict())), methods=["POST"]),
        Route("/api/rpc", endpoint(rpc_fn), methods=["POST"]),
        Route("/api/events", events_endpoint, methods=["GET"]),
    ]
    routes.extend(plugin_routes(svc, endpoint, _int))  # the Obsidian plugin's extras (http_plugin.py)
    if mcp_app is not None:
        routes.append(Mount("/", app=mcp_app))
    lifespan = getattr(mcp_app, "lifespan", None) if mcp_app is not None else None
    app = Starlette(routes=routes, lifespan=lifespan)
    return Guard(app, token, port_ref)


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("mnemovault")
    except Exception:  # running from a checkout that is not installed
        return "unknown"


def _int(value: Any, name: str) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"{name} must be a whole number") from None
    if not 1 <= n <= 1000:
        raise InvalidInput(f"{name} must be between 1 and 1000")
    return n


async def events(svc, request: Request) -> Response:
    """Server-sent events: every change the engine sees, as it happens."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue(maxsize=1000)

    def listener(kind: str, data: dict) -> None:
        def put():
            if not queue.full():
                queue.put_nowait((kind, data))
        loop.call_soon_threadsafe(put)

    unsubscribe = svc.subscribe(listener)

    async def stream():
        try:
            yield "event: hello\ndata: {}\n\n"
            while True:
                try:
                    kind, data = await asyncio.wait_for(queue.get(), timeout=PING_SECONDS)
                except asyncio.TimeoutError:
                    yield ": ping\n\n"
                    continue
                yield f"event: {kind}\ndata: {json.dumps(data, default=str)}\n\n"
        finally:
            unsubscribe()

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
