"""The shape of one declaration (bridge/declarations/__init__.py says what each part makes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal

from .. import schemas as S
from ..mcp_common import Call, hints

# the facade's marks (vault_sync/facade_marks.py, not imported: a front end imports only the facade);
# tests/bridge/test_declarations.py checks each entry's kind against the mark of its method
READ, WRITE, INTERNAL = "read", "write", "internal"
READS = hints(read_only=True, idempotent=True)
Body = Callable[[Call, Any, "str | None"], Awaitable[Any]]  # (call, parsed arguments, session project) -> answer


@dataclass(frozen=True)
class Tool:
    name: str
    description: str  # a docstring: cleaned as one (inspect.cleandoc) before tools/list shows it
    result: Any  # the answer's type: the tool's output schema
    annotations: dict[str, bool]
    args: type[S.Args] | None = None  # None: the operation's own model
    body: Body | None = None  # None: the facade method called with the arguments as given


@dataclass(frozen=True)
class Route:
    path: str
    method: Literal["GET", "POST"]
    args: type[S.Args] | None = None  # None: the operation's own model (GET: from the query string)
    run: Callable[[Any, Any], Any] | None = None  # (facade, parsed args) -> answer; None: the method


@dataclass(frozen=True)
class Op:
    method: str  # the facade method; also the op's name in /api/rpc
    kind: str  # READ or WRITE, as the facade marks the method (INTERNAL: a report, not an operation)
    args: type[S.Args] | None = None  # the facade method's keyword arguments
    rpc: bool = False
    tool: Tool | None = None
    routes: tuple[Route, ...] = ()
