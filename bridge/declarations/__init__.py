"""Every operation the front ends offer, declared once: its facade method (vault_sync/service.py)
and whether it reads or writes (the facade's mark, checked by tests/bridge/test_declarations.py),
its argument model, and how each front end shows it:

- `rpc`: the op is in `/api/rpc` and the CLI's `call` (bridge/operations.py) with `args`;
- `tool`: an MCP tool (bridge/mcp_tools.py builds it): name, description, annotations, result
  type (bridge/mcp_results.py), its arguments (`args` unless the tool's own, bridge/tool_args.py)
  and a body when it does more than call the method (bridge/mcp_memory_tools.py, mcp_vault_tools.py);
- `routes`: the HTTP routes of the bridge (bridge/http_app.py builds them; docs/bridge-api.md).

The order is the order of tools/list: memory.py, then vault.py; entry.py is an entry's shape.
The CLI's commands and renderers stay in bridge/cli_*.py.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import schemas as S
from .entry import INTERNAL, READ, WRITE, Body, Op, Route, Tool
from .memory import MEMORY
from .vault import VAULT

__all__ = ["INTERNAL", "NOT_DECLARED", "READ", "RPC_ARGS", "TABLE", "WRITE", "Body", "Op", "Route", "Tool", "rpc_args"]

TABLE: tuple[Op, ...] = MEMORY + VAULT


def _plain(method: str) -> Callable[[Any, Any], Any]:
    return lambda svc, a: getattr(svc, method)(**S.kwargs(a))


# public facade operations no front end declares here, and why
NOT_DECLARED = {
    "embedding_status": "part of status (the CLI's `status` prints it)",
    "dangling_links": "part of status; `dangling` pages them",
    "recover": "the daemon's start, before it serves",
    "run_lifecycle": "the daemon's schedule",
    "settle_conflicts": "the daemon's lease holder",
    "next_review_due": "part of GET /api/review",
    "create_memory": "the bench and the tests build vaults with it",
    "import_memories": "the CLI's `import` (a file on this machine)",
    "export": "the CLI's `export` (a stream of lines)",
    "export_to": "the CLI's `export --out` (a file on this machine)",
}

RPC_ARGS: dict[str, type[S.Args]] = {op.method: op.args for op in TABLE if op.rpc and op.args is not None}


def rpc_args(op: Any, args: Any) -> dict[str, Any]:
    """The keyword arguments for MemoryService.<op>, validated; InvalidInput otherwise."""
    return S.checked_args(RPC_ARGS, op, args)


def route_run(op: Op, route: Route) -> tuple[type[S.Args], Callable[[Any, Any], Any]]:
    """A route's model and what it runs: the op's own unless the route says otherwise."""
    model = route.args or op.args
    if model is None:
        raise TypeError(f"{route.path} declares no argument model")
    return model, route.run or _plain(op.method)
