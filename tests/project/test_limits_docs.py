"""The limits the documents state are the code's: the README's table is generated from
vault_sync/limits.py, the bridge API's bounds name the same numbers, and every MCP tool
advertises the engine's maxima."""

from __future__ import annotations

import asyncio

from conftest import ROOT
from fastmcp import Client

from bridge.mcp_server import build_mcp
from vault_sync import limits as L


def test_the_readme_limits_table_is_the_generated_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    marker = "<!-- generated from vault_sync/limits.py: python -m vault_sync.limits -->\n"
    assert marker in readme
    start = readme.index(marker) + len(marker)
    assert readme[start : start + len(L.limits_table())] == L.limits_table(), "run: python -m vault_sync.limits"


def test_the_bridge_api_states_the_same_bounds():
    text = " ".join((ROOT / "docs" / "bridge-api.md").read_text(encoding="utf-8").split())
    for phrase in (
        f"request body {L.MAX_BODY_BYTES // (1024 * 1024)} MiB",
        f"query string {L.MAX_QUERY_STRING_BYTES // 1024} KiB",
        f"`q` / `query` {L.MAX_QUERY_CHARS:,} characters",
        f"`ref` {L.MAX_REF_CHARS:,} characters",
        f"text {L.MAX_TEXT_CHARS:,} characters",
        f"title {L.MAX_TITLE_CHARS:,}",
        f"a tag {L.MAX_TAG_CHARS:,}, {L.MAX_TAGS:,} tags",
        f"relation type {L.MAX_RELATION_CHARS:,}",
        f"`limit` 1-{L.MAX_SEARCH_LIMIT:,} for search, 1-{L.MAX_LIMIT:,} elsewhere",
    ):
        assert phrase in text, phrase


def test_mcp_tools_advertise_the_engines_maxima():
    async def go():
        async with Client(build_mcp(lambda: None)) as c:
            return {t.name: t.inputSchema["properties"] for t in await c.list_tools()}

    tools = asyncio.run(go())

    def maximum(tool: str, arg: str, key: str = "maximum") -> int:
        prop = tools[tool][arg]
        options = prop.get("anyOf", [prop])
        return next(o[key] for o in options if key in o)

    assert maximum("search_memory", "limit") == L.MAX_SEARCH_LIMIT
    assert maximum("review_queue", "limit") == L.MAX_LIMIT
    assert maximum("gc", "limit") == L.MAX_LIMIT
    assert maximum("get_memory", "refs", "maxItems") == L.MAX_REFS
    assert maximum("search_memory", "query", "maxLength") == L.MAX_QUERY_CHARS
