"""A message larger than the daemon accepts, sent through `mnemovault mcp`, is answered as
too large (not as "the daemon stopped"), and the session goes on. A real daemon, a real
stdio MCP session through the relay."""

from __future__ import annotations

import asyncio

import pytest
from fastmcp import Client
from test_mcp_proxy import data, proxy

from bridge import mcp_proxy
from vault_sync.limits import MAX_BODY_BYTES

pytestmark = pytest.mark.slow


def test_the_relay_uses_the_daemons_body_limit():
    assert mcp_proxy.MAX_BODY_BYTES == MAX_BODY_BYTES


def test_a_4_mib_message_is_too_large_not_a_stopped_daemon(daemon, vault):
    async def go():
        async with Client(proxy(daemon.env, vault), timeout=120) as c:
            with pytest.raises(Exception) as err:
                await c.call_tool("save_memory", {"text": "The long one. " * (4 * 1024 * 1024 // 14 + 1)})
            message = str(err.value)
            assert "too large" in message and "4 MiB" in message and "stopped" not in message, message
            # the same session still works
            found = data(await c.call_tool("search_memory", {"query": "Postgres", "limit": 3}))
            return found

    found = asyncio.run(go())
    assert found["results"]
    assert daemon.alive()
