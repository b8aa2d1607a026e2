"""The early save server checks a save's arguments without pydantic (bridge/early_server.py):
whatever it takes must be what SaveArgs gives, and whatever SaveArgs refuses it must leave to
the MCP tool (409), so the tool's own words answer it."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bridge import schemas as S
from bridge.declarations import rpc_args
from bridge.early_server import ARGUMENTS, save_arguments
from vault_sync import limits as L
from vault_sync.errors import InvalidInput

TAKEN = [
    {"text": "x"},
    {"text": ""},
    {"text": "x" * L.MAX_TEXT_CHARS},
    {"text": "x", "tags": []},
    {"text": "x", "tags": ["a", "b" * L.MAX_TAG_CHARS]},
    {"text": "x", "tags": ["t"] * L.MAX_TAGS},
    {"text": "x", "tags": None, "title": None, "supersedes": None},
    {"text": "x", "title": "T" * L.MAX_TITLE_CHARS},
    {"text": "x", "strength": 0},
    {"text": "x", "strength": 2},
    {"text": "x", "strength": 1.5},
    {"text": "x", "supersedes": ["STM/a.md"]},
    {"text": "x", "supersedes": ["r" * L.MAX_REF_CHARS] * L.MAX_REFS},
    {"text": "x", "across_projects": True},
    {"text": "x", "shared": True},
    {"text": "é 中", "shared": False, "across_projects": False, "tags": ["ü"]},
]

REFUSED = [
    {},
    {"text": None},
    {"text": 5},
    {"text": ["x"]},
    {"text": "x" * (L.MAX_TEXT_CHARS + 1)},
    {"text": "x", "tags": "a"},
    {"text": "x", "tags": [1]},
    {"text": "x", "tags": ["t"] * (L.MAX_TAGS + 1)},
    {"text": "x", "tags": ["b" * (L.MAX_TAG_CHARS + 1)]},
    {"text": "x", "title": ""},
    {"text": "x", "title": 3},
    {"text": "x", "title": "T" * (L.MAX_TITLE_CHARS + 1)},
    {"text": "x", "strength": None},
    {"text": "x", "strength": -0.1},
    {"text": "x", "strength": 2.01},
    {"text": "x", "strength": math.inf},
    {"text": "x", "strength": math.nan},
    {"text": "x", "strength": "1"},
    {"text": "x", "strength": True},
    {"text": "x", "supersedes": []},
    {"text": "x", "supersedes": "STM/a.md"},
    {"text": "x", "supersedes": [""]},
    {"text": "x", "supersedes": ["r" * (L.MAX_REF_CHARS + 1)]},
    {"text": "x", "supersedes": ["r"] * (L.MAX_REFS + 1)},
    {"text": "x", "across_projects": 1},
    {"text": "x", "across_projects": None},
    {"text": "x", "shared": "yes"},
    {"text": "x", "conversation": "c1"},
    {"text": "x", "project": "atlas"},  # a session's project comes from the relay, not the arguments
]


def _schema(arguments: dict, project: str | None) -> dict:
    args = {k: v for k, v in arguments.items() if k != "shared"}
    args["project"] = None if arguments.get("shared") else project
    return rpc_args("save", args)


@pytest.mark.parametrize("project", [None, "atlas"])
@pytest.mark.parametrize("arguments", TAKEN)
def test_what_the_early_path_takes_is_what_the_schema_gives(arguments, project):
    early = save_arguments(arguments, project)
    schema = _schema(arguments, project)
    assert early == schema
    assert [type(v) for v in early.values()] == [type(schema[k]) for k in early]


@pytest.mark.parametrize("arguments", REFUSED)
def test_what_the_schema_refuses_the_early_path_leaves_to_the_tool(arguments):
    with pytest.raises(InvalidInput):
        save_arguments(arguments, None)


def test_the_early_path_takes_the_tools_arguments_only():
    assert ARGUMENTS | {"project"} <= set(S.SaveArgs.model_fields) | {"shared"}
    assert set(S.SaveArgs.model_fields) - ARGUMENTS == {"project"}  # the relay names the session's project


def test_the_daemon_serves_its_first_save_without_pydantic():
    code = "import sys, bridge.server; print(sorted(m for m in sys.modules if m.startswith('pydantic'))[:3])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
