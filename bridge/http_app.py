"""The HTTP bridge: JSON endpoints for the Obsidian plugin and the CLI, an SSE event stream,
and the MCP endpoint, all behind one guard (token, Host, Origin). 127.0.0.1 only."""

from __future__ import annotations

import functools
import hmac
import json
import logging
import threading
import time
from typing import Any, Awaitable, Callable

from anyio import to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vault_sync.errors import InvalidInput, MnemovaultError
from vault_sync.limits import MAX_BODY_BYTES, MAX_QUERY_STRING_BYTES, quote

from . import schemas as S
from .answers import finite, plain
from .declarations import TABLE, route_run, rpc_args
from .errors import error_body, http_status
from .events import events
from .http_jobs import job_routes
from .mcp_errors import plain_transport_errors
from .version import version

log = logging.getLogger("mnemovault.bridge")
ALLOWED_ORIGIN = "app://obsidian.md"
MAX_QUERY_STRING = MAX_QUERY_STRING_BYTES  # room for a 1,000-character query percent-encoded (12 bytes a character)


class Activity:
    """Requests in progress (an open event stream or MCP session stream counts while it lasts)
    and when the last one ended: the daemon a relay started stops after a time with no client."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.lock = threading.Lock()
        self.open = 0
        self.last = clock()

    def begin(self) -> None:
        with self.lock:
            self.open += 1

    def restart(self) -> None:
        """Count idle time from now (the server has just started answering)."""
        with self.lock:
            self.last = self.clock()

    def end(self) -> None:
        with self.lock:
            self.open -= 1
            self.last = self.clock()

    def idle_seconds(self) -> float:
        """0 while a request is open; else the time since the last one ended."""
        with self.lock:
            return 0.0 if self.open else self.clock() - self.last


class Guard:
    """ASGI middleware: every request needs the token; foreign Host or Origin is refused."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        port_ref: Callable[[], int],
        max_body: int = MAX_BODY_BYTES,
        activity: Activity | None = None,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.token = token.encode("utf-8")
        self.port_ref = port_ref
        self.activity = activity

    async def _pass(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An authorised request goes on to the app; it counts as a client while it lasts."""
        if self.activity is None:
            return await self.app(scope, receive, send)
        self.activity.begin()
        try:
            return await self.app(scope, receive, send)
        finally:
            self.activity.end()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
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
            return await _deny(send, 403, "forbidden", f"origin {quote(origin)} is not allowed")
        auth = headers.get("authorization", "")
        given = auth[7:].strip().encode("utf-8") if auth.lower().startswith("bearer ") else b""
        if not given or not hmac.compare_digest(given, self.token):
            return await _deny(
                send, 401, "unauthorized", "missing or wrong token (see the bridge file in your config folder)"
            )
        if len(scope.get("query_string", b"")) > MAX_QUERY_STRING:
            return await _deny(send, 414, "too_large", f"the query string is over {MAX_QUERY_STRING} bytes")
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                return await _deny(send, 400, "invalid", "Content-Length is not a number", close=True)
            if len(declared) > 18 or int(declared) > self.max_body:
                return await _deny(
                    send,
                    413,
                    "too_large",
                    f"the request body is {declared} bytes; the limit is {self.max_body}",
                    close=True,
                )
        if scope.get("method") in ("GET", "HEAD"):
            return await self._pass(scope, receive, send)
        # read the body here, counting: a chunked upload without Content-Length is cut off at
        # the limit too, before any of it is parsed (the daemon's memory stays flat)
        chunks, total = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            part = message.get("body", b"")
            total += len(part)
            if total > self.max_body:
                return await _deny(
                    send, 413, "too_large", f"the request body is over the limit of {self.max_body} bytes", close=True
                )
            chunks.append(part)
            if not message.get("more_body", False):
                break
        body, replayed = b"".join(chunks), False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # later: only the disconnect

        return await self._pass(scope, replay, send)


async def _deny(send: Send, status: int, code: str, message: str, close: bool = False) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:  # RFC 6750: the scheme a client must use
        headers.append((b"www-authenticate", b'Bearer realm="mnemovault"'))
    if close:  # the rest of an oversized body is never read: the connection cannot be reused
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(json.loads(json.dumps(finite(data), default=str, allow_nan=False)), status_code=status)


async def _run(fn: Callable[[], Any]) -> JSONResponse:
    """Engine calls run in a worker thread; engine errors map through the one table."""
    try:
        return _json(plain(await to_thread.run_sync(fn)))
    except MnemovaultError as exc:
        return _json(error_body(exc), http_status(exc))
    except Exception as exc:  # noqa: BLE001 - the daemon must answer, not die
        log.exception("request failed")
        return _json(error_body(exc), http_status(exc))  # a stray OSError may be a storage fault


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()  # already bounded by the Guard
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise InvalidInput("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise InvalidInput("the request body must be a JSON object")
    return data


def _bound(run: Callable[[Any, Any], Any], svc: Any, args: Any) -> Callable[[], Any]:
    """What a route's handler runs in a worker thread, its arguments parsed."""
    return lambda: run(svc, args)


def build_app(
    svc: Any,
    token: str,
    port_ref: Callable[[], int],
    mcp_app: Any = None,
    state: dict[str, Any] | None = None,
    activity: Activity | None = None,
) -> Any:
    state = state if state is not None else {}

    def endpoint(
        make: Callable[[Any], Callable[[], Any]], model: type[S.Args], method: str = "POST"
    ) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            try:
                if method == "POST":
                    args = S.parse(model, await _body(request))
                else:
                    args = S.parse(model, dict(request.query_params), strings=True)
                fn = make(args)
            except MnemovaultError as exc:
                return _json(error_body(exc), http_status(exc))
            return await _run(fn)

        return handler

    def status_fn(a: S.NoArgs) -> Callable[[], Any]:
        def go() -> Any:
            out = svc.status()
            # `api`: the plugin refuses a daemon whose bridge API differs (docs/bridge-api.md)
            out["daemon"] = {"pid": state.get("pid"), "started": state.get("started"), "version": version(), "api": 1}
            return out

        return go

    def rpc_fn(a: S.RpcBody) -> Callable[[], Any]:
        args = rpc_args(a.op, a.args)
        method = getattr(svc, a.op)
        return lambda: {"result": plain(method(**args))}

    async def events_endpoint(request: Request) -> Response:
        # an async def: Starlette runs a plain function (e.g. a lambda) in a thread and
        # would never await the coroutine it returns
        return await events(svc, request)

    routes: list[BaseRoute] = [
        Route("/api/status", endpoint(status_fn, S.NoArgs, "GET"), methods=["GET"]),
        Route("/api/rpc", endpoint(rpc_fn, S.RpcBody), methods=["POST"]),
        Route("/api/events", events_endpoint, methods=["GET"]),
    ]
    for op in TABLE:  # every operation's routes, as declared (bridge/declarations/)
        for route in op.routes:
            model, run = route_run(op, route)
            make = functools.partial(_bound, run, svc)
            routes.append(Route(route.path, endpoint(make, model, route.method), methods=[route.method]))
    routes.extend(job_routes(svc, endpoint))  # the plugin's background jobs (http_jobs.py)
    if mcp_app is not None:
        routes.append(Mount("/", app=plain_transport_errors(mcp_app)))  # no validation internals in answers
    lifespan = getattr(mcp_app, "lifespan", None) if mcp_app is not None else None
    app = Starlette(routes=routes, lifespan=lifespan)
    return Guard(app, token, port_ref, activity=activity)
