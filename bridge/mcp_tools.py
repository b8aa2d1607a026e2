"""The MCP tools, made from the declarations (bridge/declarations/): each tool's signature is
its argument model's fields (types, bounds and descriptions: the input schema), its return
annotation the declared result type (the output schema), its docstring the declared description."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Callable

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import Field

from vault_sync.errors import MnemovaultError

from . import schemas as S
from .declarations import TABLE, Body, Op, Tool
from .mcp_common import Call, tool_message
from .mcp_memory_tools import recall_context_prompt
from .mcp_project import current


def _plain(method: str) -> Body:
    async def body(call: Call, a: Any, project: str | None) -> Any:
        return await call(lambda s: getattr(s, method)(**S.kwargs(a)))

    return body


def _parameters(model: type[S.Args]) -> list[inspect.Parameter]:
    params = []
    for name, field in model.model_fields.items():
        extra = [Field(description=field.description)] if field.description else []
        annotation = (
            Annotated[(field.annotation, *field.metadata, *extra)] if field.metadata or extra else field.annotation
        )
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)
        )
    return params


def tool_function(op: Op, tool: Tool, call: Call) -> Callable[..., Any]:
    """The function fastmcp makes the tool of: called with the validated arguments."""
    model = tool.args or op.args
    if model is None:
        raise TypeError(f"{tool.name} declares no argument model")
    body = tool.body or _plain(op.method)

    async def run(**given: Any) -> Any:
        args = model.model_construct(**given)  # validated already, against the same fields
        try:
            return await body(call, args, current())
        except MnemovaultError as exc:  # a check of the tool's own (call raises engine errors as tool errors)
            raise ToolError(tool_message(exc)) from None

    params = _parameters(model)
    run.__name__ = run.__qualname__ = tool.name
    run.__doc__ = tool.description
    run.__signature__ = inspect.Signature(params, return_annotation=tool.result)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params} | {"return": tool.result}
    return run


def register_tools(mcp: FastMCP, call: Call) -> None:
    """Every declared tool, in the order tools/list shows them, and the briefing prompt."""
    for op in TABLE:
        if op.tool is not None:
            mcp.tool(tool_function(op, op.tool, call), name=op.tool.name, annotations=op.tool.annotations)

    @mcp.prompt(name="recall_context", description="Start with what mnemovault knows about a topic.")
    async def recall_context_prompt_(topic: str = "", max_tokens: str = "800") -> str:
        try:
            return await recall_context_prompt(call, topic, max_tokens, current())
        except MnemovaultError as exc:
            raise ToolError(tool_message(exc)) from None
