"""The SSE event stream: every change the engine sees, as it happens, with a bounded queue
per client. A client too slow to keep up loses events, and is told so: once it has read
what was queued it gets one `resync` event (`{"dropped": N}`) and should refresh everything."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from .answers import finite

if TYPE_CHECKING:
    from vault_sync.service import MemoryService

log = logging.getLogger("mnemovault.bridge")
PING_SECONDS = 15.0
QUEUE_SIZE = 1000  # events held per client; past this it gets a `resync` instead


class ClientQueue:
    """Events for one client. Touched only on the event loop's thread (`offer` is scheduled
    there), so the overflow count needs no lock."""

    def __init__(self, size: int = QUEUE_SIZE):
        self.queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(maxsize=size)
        self.dropped = 0  # events lost since the queue filled; > 0 means a resync is owed

    def offer(self, kind: str, data: dict[str, Any]) -> None:
        # after an overflow nothing more is queued until the client catches up: every event
        # it reads after its `resync` is newer than the refresh it makes then
        if self.dropped or self.queue.full():
            self.dropped += 1
            return
        self.queue.put_nowait((kind, data))

    async def next(self, timeout: float) -> tuple[str, dict[str, Any]] | None:
        """The next event; a `resync` once the backlog is read after an overflow; None on a quiet spell."""
        if self.dropped and self.queue.empty():
            dropped, self.dropped = self.dropped, 0
            log.warning("event stream: a slow client missed %d events; sent it a resync", dropped)
            return "resync", {"dropped": dropped}
        try:
            return await asyncio.wait_for(self.queue.get(), timeout=timeout)
        except asyncio.TimeoutError:
            return None


def frame(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(finite(data), default=str, allow_nan=False)}\n\n"


async def events(
    svc: MemoryService, request: Request, ping_seconds: float = PING_SECONDS, queue_size: int = QUEUE_SIZE
) -> Response:
    """Server-sent events for one client, from `svc.subscribe`."""
    loop = asyncio.get_running_loop()
    client = ClientQueue(queue_size)

    def listener(kind: str, data: dict[str, Any]) -> None:  # called on engine threads
        loop.call_soon_threadsafe(client.offer, kind, data)

    unsubscribe = svc.subscribe(listener)

    async def stream() -> AsyncIterator[str]:
        try:
            yield frame("hello", {})
            while True:
                item = await client.next(ping_seconds)
                yield ": ping\n\n" if item is None else frame(*item)
        finally:
            unsubscribe()

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )
