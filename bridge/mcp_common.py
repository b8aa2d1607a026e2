"""What the MCP tool modules share: the tools' annotations, the error text, the caps on long lists."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from vault_sync.errors import MnemovaultError

# runs `fn(service)` off the event loop and returns plain JSON; an engine error becomes a tool error
Call = Callable[[Callable[[Any], Any]], Awaitable[Any]]

MAX_LINKS = 100  # links and backlinks listed per memory read; the rest counted


# MCP tool annotations: hints for clients deciding whether a call needs the person's consent.
# Every tool acts on the local vault only (openWorldHint false).
def hints(read_only: bool = False, destructive: bool = False, idempotent: bool = False) -> dict[str, bool]:
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }


READ = hints(read_only=True, idempotent=True)


# moves notes, or rewrites links in notes the call does not name: a client asks the person first
MOVES = hints(destructive=True)


def tool_message(exc: MnemovaultError) -> str:
    """`<code>: <message>`, without repeating a code the message already starts with."""
    return exc.tagged()


def bounded_status(result: dict[str, Any]) -> dict[str, Any]:
    """status with its lists of problems and conflicts cut to a page; the totals beside them."""
    for key in ("problems", "conflicts", "quarantined", "supersession_cycles"):
        items = result.get(key)
        if isinstance(items, list) and len(items) > MAX_LINKS:
            result[key] = items[:MAX_LINKS]
            result[f"{key}_total"] = len(items)
    return result
