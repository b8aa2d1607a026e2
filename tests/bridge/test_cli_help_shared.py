"""A CLI option that is a field of its operation's argument model shows that field's description as
its --help (bridge/cli_app.described): the text an assistant reads over MCP and the one a person
reads in a terminal are one text, so they cannot drift apart again."""

from __future__ import annotations

from typing import Any

import typer.main

from bridge.cli import app
from bridge.declarations import RPC_ARGS

# each command and the operations it calls (bridge/cli_*.py: operations.call(vault, "<op>", ...))
COMMAND_OPS = {
    "save": ("save",),
    "brief": ("brief",),
    "supersede": ("supersede",),
    "touch": ("touch",),
    "pin": ("pin",),
    "unpin": ("unpin",),
    "observe": ("observe",),
    "thread": ("thread",),
    "review": ("review_memory", "review"),
    "recent": ("recent",),
    "promote": ("promote", "promote_all"),
    "gc": ("gc",),
    "archive": ("archive",),
    "restore": ("restore",),
    "relate": ("relate",),
    "graph": ("graph",),
    "search": ("search",),
    "cluster": ("cluster",),
    "consolidate": ("consolidate",),
    "sweep": ("sweep",),
    "links": ("dangling",),
}

# parameters named like a field whose help stays the CLI's own, and why
CLI_ONLY = {
    ("save", "text"): "read from stdin when omitted",
    ("save", "tags"): "one comma-separated string on the command line",
    ("save", "supersedes"): "repeatable option",
    ("save", "across_projects"): "names the --supersedes option",
    ("observe", "context_tags"): "one comma-separated string on the command line",
    ("review", "ref"): "only with --grade (the CLI's review lists or grades)",
    ("promote", "ref"): "omitted with --auto",
    ("promote", "dry_run"): "a no-op kept for old scripts; --apply is the model's dry_run=false",
    ("gc", "dry_run"): "a no-op kept for old scripts; --apply is the model's dry_run=false",
    ("search", "tags"): "one comma-separated string on the command line",
}
# the options every scoped command shares (bridge/cli_app.py): --project defaults to the current
# folder's project and --all-projects names the flag, where an assistant's session has its own project
SHARED_OPTIONS = {"project", "all_projects"}


def _commands() -> dict[str, Any]:
    group: Any = typer.main.get_command(app)  # a TyperGroup: its sub-commands by name
    return dict(group.commands)


def test_every_option_named_like_its_operations_field_shows_the_fields_description() -> None:
    commands = _commands()
    drift: list[str] = []
    shared = 0
    for name, ops in COMMAND_OPS.items():
        for param in commands[name].params:
            if (name, param.name) in CLI_ONLY or param.name in SHARED_OPTIONS:
                continue
            for op in ops:
                field = RPC_ARGS[op].model_fields.get(param.name or "")
                if field is None:
                    continue
                help_text = getattr(param, "help", None)
                if help_text != field.description:
                    drift.append(f"{name} {param.name}: --help {help_text!r} vs {op} {field.description!r}")
                else:
                    shared += 1
                break
    assert not drift, "\n".join(drift)
    assert shared >= 40  # 42 today: a check that matched nothing would pass too


def test_cli_only_entries_still_name_real_parameters() -> None:
    commands = _commands()
    for name, param in CLI_ONLY:
        assert param in {p.name for p in commands[name].params}, (name, param)
