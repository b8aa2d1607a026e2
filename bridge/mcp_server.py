"""The MCP server: one tool per operation, each a few lines over MemoryService (the tools are in
mcp_memory_tools.py and mcp_vault_tools.py; the resources here)."""

from __future__ import annotations

import json
from typing import Any, Callable

import mcp_types as mt
from anyio import to_thread
from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError, ToolError
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from vault_sync.errors import InvalidInput, MnemovaultError, NotFound
from vault_sync.limits import ANSWER_CHARS

from . import schemas as S
from .answers import tool_answer
from .errors import engine_error
from .mcp_common import bounded_status, tool_message
from .mcp_project import SessionProjects, current
from .mcp_results import fit
from .mcp_tools import register_tools
from .version import version

INSTRUCTIONS = """mnemovault keeps memories as Markdown notes in the user's Obsidian vault.
Save short facts worth remembering with save_memory; search before answering questions about
the user's work with search_memory; "what did I say last week" is recent_memories (newest
first, no query). After using memories, report them with observe_memory_usage so they stay
alive (the one way to say "I used this"). When a new fact replaces an old one (a changed
preference, a moved date), save it with supersedes=[old id]: search then returns only the
current fact (a save answer's may_supersede lists memories it may replace). At the start of
a conversation call recall_context(topic, max_tokens) once instead of many searches. To forget
a memory on request, archive_memory(id) (restorable). Memories belong to the project of your
workspace (your MCP roots): answers hold that project's memories plus shared ones and say
which project they were scoped to; save a fact about the user rather than the project with
shared=true. Listings are paged: each answer has
`total` and `next_offset` (null at the end); pass offset=next_offset for the next page.
Memories fade unless used; strong ones are promoted to long-term notes, weak ones archived
(never deleted: search_memory(scope="archive") finds them, restore_memory brings one back)."""


RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for a resource that does not exist
INVALID_PARAMS = -32602


class ArgumentErrors(Middleware):
    """Argument errors in our own words: the field named, the input never echoed back
    (fastmcp's default text is pydantic's, which quotes the input)."""

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        args = context.message.arguments or {}
        if context.message.name in ("gc", "promote_memory") and "dry_run" in args:
            # the old flag: a client that coerced "no" to false must not act; say what replaced it
            raise ToolError("invalid: `dry_run` is no longer an argument: this tool previews unless apply=true")
        try:
            return await call_next(context)
        except FastMCPValidationError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(f"invalid: {S.message(cause)}") from None
            raise


class Ceiling(Middleware):
    """Every tool's answer within ANSWER_CHARS, whatever its arguments (mcp_results.fit): the one
    place the budget is applied, after the tool made its page."""

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        result = await call_next(context)
        sc = getattr(result, "structured_content", None)
        if getattr(result, "is_error", False) or not isinstance(sc, dict):
            return result
        wrapped = set(sc) == {"result"}  # fastmcp's envelope of a list answer
        value = sc["result"] if wrapped else sc
        cut = fit(value, ANSWER_CHARS)
        if cut is value:
            return result
        return ToolResult(content=cut, structured_content={"result": cut} if wrapped else cut, meta=result.meta)


def build_mcp(get_service: Callable[[], Any], project: str | None = None) -> FastMCP:
    """`project`: every call's project (`mcp --in-process --project`, "" for shared); None: from
    the relay's header or the client's roots (mcp_project.py)."""
    mcp = FastMCP("mnemovault", instructions=INSTRUCTIONS, version=version(), strict_input_validation=True)
    mcp.add_middleware(ArgumentErrors())
    mcp.add_middleware(Ceiling())

    def mapping() -> dict[str, str]:
        svc = get_service()
        return dict(getattr(getattr(svc, "settings", None), "projects", None) or {})

    mcp.add_middleware(SessionProjects(mapping, project))  # the session's project, from the relay or the client's roots

    async def run(fn: Callable[[Any], Any]) -> Any:
        """`fn(service)` off the event loop, as plain JSON; engine errors raised as they are."""
        svc = get_service()
        try:
            return tool_answer(await to_thread.run_sync(lambda: fn(svc)))
        except OSError as exc:  # a storage fault the engine did not name: say what, not which temp file
            err = engine_error(exc)
            if isinstance(err, MnemovaultError):
                raise err from None
            raise

    async def call(fn: Callable[[Any], Any]) -> Any:
        try:
            return await run(fn)
        except MnemovaultError as exc:
            raise ToolError(tool_message(exc)) from None

    register_tools(mcp, call)

    async def resource(fn: Callable[[Any], Any]) -> Any:
        """Engine errors as MCP errors: a missing memory is "resource not found", a bad one invalid params."""
        try:
            return await run(fn)
        except NotFound as exc:
            raise MCPError(RESOURCE_NOT_FOUND, tool_message(exc)) from None
        except InvalidInput as exc:
            raise MCPError(INVALID_PARAMS, tool_message(exc)) from None
        except MnemovaultError as exc:
            raise ResourceError(tool_message(exc)) from None

    @mcp.resource("memory://{memory_id}", mime_type="text/markdown")
    async def memory_resource(memory_id: str) -> str:
        """One memory's note as Markdown: the file's text, frontmatter included."""

        def text(svc: Any) -> str:
            path = svc.get_memory([memory_id])[0]["path"]
            return str(svc.read_note(path)["text"])

        return str(await resource(text))

    @mcp.resource("mnemovault://status", mime_type="application/json")
    async def status_resource() -> str:
        """The vault's memory status."""
        return json.dumps(bounded_status(await resource(lambda s: s.status())), default=str)

    @mcp.resource("mnemovault://review", mime_type="application/json")
    async def review_resource() -> str:
        """The review queue: memories about to be forgotten, most urgent first (the first 20), of the session's
        project and shared ones."""
        project = current()  # the session's (mcp_project.py)
        return json.dumps(await resource(lambda s: s.review(20, project, False)), default=str)

    return mcp
