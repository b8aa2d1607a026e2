"""Which project an MCP session answers for (docs/projects.md).

1. The `Mnemovault-Project` header: the relay sends it for `mnemovault mcp --project NAME`
   (an HTTP client may send it too); an empty value means shared.
2. Else the client's roots: the first root's folder, mapped by the `[projects]` table of
   config.toml (vault_sync/projects.py). A session of the handshake era (protocol 2025-11-25
   and before, what most assistants speak) is asked `roots/list` once, again after it sends
   `notifications/roots/list_changed`; a 2026-07-28 client has no session to remember, so
   each tool call asks for the roots inside the call (an input-required answer, SEP-2322).
3. Else shared.

The project is set for the call in a context variable; the tools read it with `current()`.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from contextvars import ContextVar
from typing import Any, Callable, TypeVar
from urllib.parse import unquote, urlparse

import anyio
import mcp_types as mt
from fastmcp.prompts.base import PromptResult
from fastmcp.resources.base import ResourceResult
from fastmcp.server.context import Context
from fastmcp.server.dependencies import get_http_headers
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import InputRequiredToolResult, ToolResult
from mcp.shared.message import ServerMessageMetadata
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from vault_sync.errors import InvalidInput
from vault_sync.projects import check_project, folder_project

PROJECT_HEADER = "mnemovault-project"
ROOTS_KEY = "mnemovault_roots"  # our input request's key in a 2026-07-28 tools/call
MAX_SESSIONS = 4096  # sessions whose roots are remembered (a daemon serves a few)
ROOTS_SECONDS = 10.0  # a client that does not answer roots/list in this time is served as shared


class _NoHeader:
    """The request carries no project header."""


_NONE = _NoHeader()
Found = str | None | InputRequiredToolResult  # a project (None: shared), or the roots to ask for first
P = TypeVar("P")  # a request's parameters
R = TypeVar("R")  # its result
_current: ContextVar[str | None] = ContextVar("mnemovault_project", default=None)


def current() -> str | None:
    """The project of the call being served (None: shared)."""
    return _current.get()


def root_folder(uri: str) -> str | None:
    """The local folder a `file://` root names; None for another kind of root."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///C:/work/atlas
        path = path[1:]
    return path.rstrip("/") or "/"


def project_of_roots(uris: list[str], mapping: dict[str, str]) -> str | None:
    """The project the first folder root stands for (None: no folder root)."""
    for uri in uris:
        folder = root_folder(uri)
        if folder is not None:
            try:
                return folder_project(folder, mapping)
            except InvalidInput:
                return None  # a folder name no project can have (brackets, #): shared
    return None


class SessionProjects(Middleware):
    def __init__(self, mapping: Callable[[], dict[str, str]], fixed: str | None = None):
        self.mapping = mapping
        self.fixed = fixed  # `mcp --in-process --project NAME`: every call's, whatever the roots
        self.sessions: OrderedDict[str, str | None] = OrderedDict()  # handshake-era session id -> project

    def _remember(self, session: str, project: str | None) -> None:
        self.sessions[session] = project
        self.sessions.move_to_end(session)
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.popitem(last=False)

    async def on_notification(
        self,
        context: MiddlewareContext[mt.Notification[Any, Any]],
        call_next: CallNext[mt.Notification[Any, Any], Any],
    ) -> Any:
        if context.method == "notifications/roots/list_changed" and context.fastmcp_context is not None:
            try:
                self.sessions.pop(context.fastmcp_context.session_id, None)  # asked again on the next call
            except RuntimeError:
                pass
        return await call_next(context)

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        found = await self._project(context.fastmcp_context, ask=True)
        if isinstance(found, InputRequiredToolResult):
            return found
        token = _current.set(found)
        try:
            return await call_next(context)
        finally:
            _current.reset(token)

    async def on_read_resource(
        self,
        context: MiddlewareContext[mt.ReadResourceRequestParams],
        call_next: CallNext[mt.ReadResourceRequestParams, ResourceResult],
    ) -> ResourceResult:
        return await self._shown(context, call_next)

    async def on_get_prompt(
        self,
        context: MiddlewareContext[mt.GetPromptRequestParams],
        call_next: CallNext[mt.GetPromptRequestParams, PromptResult],
    ) -> PromptResult:
        return await self._shown(context, call_next)

    async def _shown(self, context: MiddlewareContext[P], call_next: CallNext[P, R]) -> R:
        """A prompt or resource: the relay's project, or roots already asked (a 2026-07-28
        client's are not asked here: shared)."""
        found = await self._project(context.fastmcp_context, ask=False)
        token = _current.set(found if not isinstance(found, InputRequiredToolResult) else None)
        try:
            return await call_next(context)
        finally:
            _current.reset(token)

    async def _project(self, ctx: Context | None, ask: bool) -> Found:
        if self.fixed is not None:
            return check_project(self.fixed)
        header = _header()
        if not isinstance(header, _NoHeader):
            return header
        if ctx is None or ctx.request_context is None:
            return None
        params = ctx.session.client_params
        if params is None or params.capabilities is None or params.capabilities.roots is None:
            return None  # a client without roots: shared
        if ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS:
            if not ask:
                return None
            answers = ctx.input_responses
            answer = answers.get(ROOTS_KEY) if answers else None
            if isinstance(answer, mt.ListRootsResult):
                return project_of_roots([str(r.uri) for r in answer.roots], self.mapping())
            return InputRequiredToolResult(mt.InputRequiredResult(input_requests={ROOTS_KEY: mt.ListRootsRequest()}))
        session = ctx.session_id
        if session in self.sessions:
            return self.sessions[session]
        project = None  # a client that declared roots and cannot list them: shared until its roots change
        try:
            with warnings.catch_warnings(), anyio.move_on_after(ROOTS_SECONDS):
                warnings.simplefilter("ignore")  # roots are deprecated at 2026-07-28, not in this era
                # on the call's own response stream: a request on the session's GET stream is
                # dropped when the client has not opened that stream yet (the relay opens it
                # beside the first call, so under load the call came first and waited 10 s)
                result = await ctx.session.send_request(
                    mt.ListRootsRequest(),
                    mt.ListRootsResult,
                    metadata=ServerMessageMetadata(related_request_id=ctx.request_context.request_id),
                )
                project = project_of_roots([str(r.uri) for r in result.roots], self.mapping())
        except Exception:
            pass
        self._remember(session, project)
        return project


def _header() -> str | None | _NoHeader:
    """The project the header names (None: shared), or _NONE without the header."""
    headers = get_http_headers(include_all=True)
    if PROJECT_HEADER not in headers:
        return _NONE
    try:
        return check_project(unquote(headers[PROJECT_HEADER]))
    except InvalidInput:
        return None
