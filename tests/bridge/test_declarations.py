"""The declaration table (bridge/declarations/) agrees with the facade: every declared
operation is a facade method marked as the table says (read or write), and every public
operation of the facade is declared or named as a deliberate exception."""

from __future__ import annotations

import inspect
from typing import Any

from bridge.declarations import NOT_DECLARED, RPC_ARGS, TABLE, Op
from bridge.schemas import RefArgs
from vault_sync.facade_marks import READ, WRITE, mark_of, reads
from vault_sync.service import MemoryService

OPERATIONS = (READ, WRITE)  # the marks of what a front end offers


def problems(table: tuple[Op, ...], facade: type, exceptions: dict[str, str]) -> list[str]:
    """What is wrong between `table` and `facade`, in words (empty: they agree)."""
    found: list[str] = []
    declared = {op.method for op in table}
    for op in table:
        method = vars(facade).get(op.method)
        if method is None:
            found.append(f"{op.method}: declared, but the facade has no such method")
        elif mark_of(method) is None:
            found.append(f"{op.method}: declared, but the facade method is unmarked")
        elif mark_of(method) != op.kind:
            found.append(f"{op.method}: declared {op.kind}, but the facade marks it {mark_of(method)}")
    for name, value in vars(facade).items():
        if name.startswith("_") or mark_of(value) not in OPERATIONS:
            continue
        if name not in declared and name not in exceptions:
            found.append(f"{name}: a facade operation ({mark_of(value)}) missing from the table")
    for name in exceptions:
        if name in declared:
            found.append(f"{name}: declared and also listed as an exception")
        elif mark_of(vars(facade).get(name)) not in OPERATIONS:
            found.append(f"{name}: listed as an exception, but it is no facade operation")
    return found


def test_the_table_and_the_facade_agree():
    assert problems(TABLE, MemoryService, NOT_DECLARED) == []


class _Facade:
    @reads
    def look(self) -> None: ...

    def unmarked(self) -> None: ...

    @reads
    def forgotten(self) -> None: ...


def test_the_check_finds_an_unmarked_method_a_wrong_kind_and_a_missing_operation():
    table = (Op("look", WRITE), Op("unmarked", READ), Op("gone", READ))
    found = problems(table, _Facade, {})
    assert "look: declared write, but the facade marks it read" in found
    assert "unmarked: declared, but the facade method is unmarked" in found
    assert "gone: declared, but the facade has no such method" in found
    assert "forgotten: a facade operation (read) missing from the table" in found
    assert problems((Op("look", READ),), _Facade, {"forgotten": "why"}) == []


def _parameters(method: str) -> set[str]:
    return set(inspect.signature(getattr(MemoryService, method)).parameters) - {"self"}


def test_every_argument_model_names_parameters_of_its_method():
    """An rpc op (and a route or tool without a body of its own) calls the method with its model's fields."""
    for op in TABLE:
        models: list[Any] = [op.args] if op.rpc else []
        models += [r.args or op.args for r in op.routes if r.run is None]
        if op.tool is not None and op.tool.body is None:
            models.append(op.tool.args or op.args)
        for model in models:
            assert model is not None, op.method
            extra = set(model.model_fields) - _parameters(op.method)
            assert not extra, f"{op.method}: {model.__name__} has {extra}, not parameters of the facade method"


def test_names_and_paths_are_declared_once():
    tools = [op.tool.name for op in TABLE if op.tool is not None]
    routes = [(r.method, r.path) for op in TABLE for r in op.routes]
    methods = [op.method for op in TABLE]
    assert len(tools) == len(set(tools)) and len(routes) == len(set(routes)) and len(methods) == len(set(methods))
    assert RPC_ARGS["pin"] is RefArgs and "save_many" not in RPC_ARGS  # rpc only where declared
