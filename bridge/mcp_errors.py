"""The MCP transport's own refusals in plain words. A message that is not one JSON-RPC
request (a batch, a number for `method`) is refused by the MCP library with its validation
library's text: types, internal class names, links, and an echo of the input (which may
hold a secret). This wrapper around the `/mcp` app keeps the status and the JSON-RPC error
code and replaces that text with one sentence."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PLAIN = (
    "invalid request: not a JSON-RPC 2.0 message this server accepts; send one object per request "
    '(batches are not supported) with "jsonrpc": "2.0", a string "method", and "id" and "params" as needed'
)


def _plain(body: bytes) -> bytes | None:
    """The body with a validation error's text replaced; None to leave it as it is."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    err = data.get("error") if isinstance(data, dict) else None
    if not isinstance(err, dict) or not str(err.get("message", "")).startswith("Validation error"):
        return None
    err["message"] = PLAIN
    return json.dumps(data).encode("utf-8")


def plain_transport_errors(app: ASGIApp) -> ASGIApp:
    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        held: Message | None = None  # the start of a 400 answer, sent once its body is seen
        chunks: list[bytes] = []

        async def relay(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message.get("status") == 400:
                held = message
                return
            if held is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            body = _plain(body) or body
            headers = [(k, v) for k, v in held.get("headers", []) if k.lower() != b"content-length"]
            await send({**held, "headers": headers + [(b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

        await app(scope, receive, relay)

    return wrapped
