"""Notifications the MCP server sends on its own, outside any call.

When the review queue changes (a note was indexed, scored, moved or superseded, by a tool,
the lifecycle or the person in Obsidian), every open MCP session gets
`notifications/resources/updated` for `mnemovault://review`: a client showing that resource
re-reads it instead of polling. Over streamable HTTP (the daemon) these go out on each
session's GET stream, which `mnemovault mcp` relays to its stdio client.

Engine events arrive on any thread; the check runs on the server's event loop, at most once
per DEBOUNCE seconds, and compares the queue's ids with the last ones sent.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from anyio import to_thread
from fastmcp import FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

if TYPE_CHECKING:
    from vault_sync.service import MemoryService

REVIEW_URI = "mnemovault://review"
REVIEW_SIZE = 20  # what the resource lists
DEBOUNCE = 0.3
EVENTS = {"indexed", "deleted", "score_changed", "archived", "promoted", "restored", "superseded", "consolidated"}
log = logging.getLogger("mnemovault.mcp")


class SessionWatch(Middleware):
    """Remembers each open client connection (and the loop serving it) as its messages pass.

    The MCP SDK (v2) builds a ServerSession per request; what lasts is the connection behind
    it, whose `outbound` channel carries messages outside any request. A connection leaves
    the set when it closes (its exit stack), so a finished session is never written to."""

    def __init__(self) -> None:
        self.connections: dict[int, Any] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    async def on_message(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        ctx = context.fastmcp_context
        connection = None
        if ctx is not None:
            try:
                connection = getattr(ctx.session, "_connection", None)  # the SDK keeps it private
            except RuntimeError:  # no request context (e.g. a background task)
                connection = None
        if connection is not None and id(connection) not in self.connections:
            key = id(connection)
            self.connections[key] = connection
            self.loop = asyncio.get_running_loop()
            connection.exit_stack.callback(lambda: self.connections.pop(key, None))
        return await call_next(context)


class ReviewNotifier:
    def __init__(self, svc: MemoryService, watch: SessionWatch):
        self.svc = svc
        self.watch = watch
        self.last: list[str] | None = None
        self.pending = False
        self.sent = 0

    def on_event(self, kind: str, data: Any) -> None:
        """An engine listener (any thread): schedule one check on the server's loop."""
        loop = self.watch.loop
        if kind not in EVENTS or loop is None or self.pending or loop.is_closed():
            return
        self.pending = True
        try:
            loop.call_soon_threadsafe(lambda: loop.create_task(self._check()))
        except RuntimeError:  # the loop stopped meanwhile
            self.pending = False

    async def _check(self) -> None:
        await asyncio.sleep(DEBOUNCE)
        self.pending = False  # events from here on schedule another check
        try:
            queue = await to_thread.run_sync(lambda: [r["path"] for r in self.svc.review(REVIEW_SIZE)])
        except Exception as exc:  # noqa: BLE001 - a failed check must not take the server down
            log.warning("review queue check failed: %s", exc)
            return
        if self.last is None:
            self.last = queue  # the first look: nothing to compare with, but say it may have changed
        elif queue == self.last:
            return
        self.last = queue
        for key, connection in list(self.watch.connections.items()):
            try:
                await connection.outbound.notify("notifications/resources/updated", {"uri": REVIEW_URI})
                self.sent += 1
            except Exception:  # noqa: BLE001 - a connection that is closing
                self.watch.connections.pop(key, None)


def notify_review_changes(mcp: FastMCP, svc: MemoryService) -> ReviewNotifier:
    """Send `resources/updated` for the review queue to every session when it changes."""
    watch = SessionWatch()
    mcp.add_middleware(watch)
    notifier = ReviewNotifier(svc, watch)
    svc.subscribe(notifier.on_event)
    return notifier
