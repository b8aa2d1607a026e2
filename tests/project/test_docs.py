"""The README names every MCP tool and every CLI command, and nothing that does not exist.

Format expected in README.md: a `## Commands` section and an `MCP tools` section (`##` or
`###`; else `## MCP`), each with a bullet list whose items start with the name in backticks:

    - `save` — save a memory ...
    - `save_memory`
"""

from __future__ import annotations

import asyncio
import re

import typer.main
from conftest import ROOT
from fastmcp import Client

from bridge.cli import app
from bridge.mcp_server import build_mcp

README = ROOT / "README.md"
BULLET = re.compile(r"^\s*[-*]\s+`([a-z][a-z0-9_-]*)`")


def section(title_prefix: str) -> str:
    """The text of the first `## <title>` section whose title starts with title_prefix."""
    text = README.read_text(encoding="utf-8")
    heads = list(re.finditer(r"^(#{2,3})\s+(.+?)\s*$", text, re.M))
    for i, head in enumerate(heads):
        if head.group(2).lower().startswith(title_prefix.lower()):
            end = next((h.start() for h in heads[i + 1 :] if len(h.group(1)) <= len(head.group(1))), len(text))
            return text[head.end() : end]
    raise AssertionError(f"README.md has no section starting with '## {title_prefix}'")


def bullets(body: str) -> list[str]:
    return [m.group(1) for line in body.splitlines() if (m := BULLET.match(line))]


def test_readme_lists_every_cli_command():
    group = typer.main.get_command(app)
    commands = set(group.commands)
    documented = bullets(section("Commands"))
    assert len(documented) == len(set(documented)), "a command is listed twice"
    assert sorted(commands - set(documented)) == [], "commands missing from README ## Commands"
    assert sorted(set(documented) - commands) == [], "README ## Commands names commands that do not exist"


def test_readme_lists_every_mcp_tool():
    async def names():
        async with Client(build_mcp(lambda: None)) as c:
            return {t.name for t in await c.list_tools()}

    tools = asyncio.run(names())
    try:
        body = section("MCP tools")
    except AssertionError:
        body = section("MCP")
    documented = bullets(body)
    assert len(documented) == len(set(documented)), "a tool is listed twice"
    assert sorted(tools - set(documented)) == [], "tools missing from README ## MCP tools"
    assert sorted(set(documented) - tools) == [], "README ## MCP tools names tools that do not exist"


def test_bridge_doc_lists_every_api_route():
    from starlette.routing import Route

    from bridge.http_app import build_app

    guard = build_app(None, "t" * 40, lambda: 1)
    routes = {(m, r.path) for r in guard.app.routes if isinstance(r, Route) for m in r.methods - {"HEAD"}}
    doc = (ROOT / "docs" / "bridge-api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\|\s*(GET|POST)\s+`(/api/[a-z]+)[?`]", doc, re.M))
    internal = {("POST", "/api/rpc")}  # the CLI's channel, not part of the plugin contract
    assert routes - internal == listed
