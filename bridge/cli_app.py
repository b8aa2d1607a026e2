"""The `mnemovault` command's typer app and what every command module shares: the common
options, turning engine errors into exit codes, printing text or JSON. The command modules
(cli_index, cli_memory, cli_search, cli_admin, cli_transfer) register on this app; bridge/cli.py
imports them all."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Callable

import typer
from pydantic import BaseModel

from vault_sync.errors import MnemovaultError

from .answers import finite
from .errors import cli_failure

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="mnemovault: memories that live in your Obsidian vault.",
)


def reflow(text: str) -> str:
    """A docstring as help: paragraphs kept, the line breaks inside each one dropped (rich's
    help keeps them, so a wrapped docstring printed as ragged half-lines)."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def reflow_help(group: typer.Typer) -> None:
    """Every command's help in `group` and its sub-groups, reflowed (call once all are registered)."""
    for info in group.registered_commands:
        doc = info.help if info.help is not None else inspect.getdoc(info.callback)
        if doc:
            info.help = reflow(doc)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            reflow_help(sub.typer_instance)


def described(model: type[BaseModel], field: str) -> str:
    """The description of `field` in an operation's argument model (bridge/schemas.py): the text an
    assistant reads over MCP and /api/rpc, used as the option's --help so the two cannot drift
    (tests/bridge/test_cli_help_shared.py). One paragraph: help is reflowed."""
    text = model.model_fields[field].description
    if not text:
        raise TypeError(f"{model.__name__}.{field} has no description to share with --help")
    return text


VaultOpt = typer.Option(
    None, "--vault", "-v", help="The vault folder (else MNEMOVAULT_VAULT, the config, or the vault you are inside)."
)
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of text.")
TagsOpt = typer.Option(None, "--tags", "-t", help="Comma-separated tags (nested with /).")
ProjectOpt = typer.Option(
    None,
    "--project",
    help='The project (with shared memories); "" for shared only. Default: the current folder\'s (docs/projects.md).',
)
AllProjectsOpt = typer.Option(False, "--all-projects", help="Every project's memories.")


def cli_project(vault: Path | None, project: str | None) -> str | None:
    """The project a command works in: --project, else MNEMOVAULT_PROJECT, else the current
    folder's by the same rules as an assistant's roots ([projects] in config.toml, else the
    folder's name); a folder inside the vault, the home folder or / is shared (None)."""
    import os

    from vault_sync.projects import check_project, folder_project

    if project is not None:
        return check_project(project)
    if "MNEMOVAULT_PROJECT" in os.environ:
        return check_project(os.environ["MNEMOVAULT_PROJECT"])
    from vault_sync.settings import load_settings

    settings = load_settings(**({"vault": vault} if vault is not None else {}))
    here = Path.cwd().resolve()
    root = settings.vault.expanduser().resolve() if settings.vault is not None else None
    if here in (Path.home().resolve(), Path(here.anchor)) or (root is not None and here.is_relative_to(root)):
        return None
    # deep inside a repository (src/, docs/): the repository's folder is the one an assistant has as its root
    repo = next((p for p in (here, *here.parents) if (p / ".git").exists()), None)
    try:
        mapped = folder_project(here, settings.projects)
        if repo is None or repo in (Path(repo.anchor), Path.home().resolve()) or mapped != folder_project(here):
            return mapped  # the folder's own name, or what the config maps it to
        return folder_project(repo, settings.projects)
    except MnemovaultError:  # a folder name no project can have (brackets, #): shared
        return None


def project_args(vault: Path | None, project: str | None, all_projects: bool) -> dict[str, Any]:
    """The keyword arguments that scope a command: every project's, or one project's and shared."""
    if all_projects:
        return {"all_projects": True}
    return {"project": cli_project(vault, project)}


def tag_list(value: str | None) -> list[str] | None:
    """--tags' comma-separated value as a list (None when not given)."""
    return [t for t in value.split(",") if t.strip()] if value else None


def _print_version(value: bool) -> None:
    if value:
        from .version import version

        typer.echo(f"mnemovault {version()}")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    pass


def run(fn: Callable[[], Any]) -> Any:
    """Turn engine errors into a one-line message and an exit code."""
    try:
        return fn()
    except (MnemovaultError, OSError) as exc:
        message, code = cli_failure(exc) or (str(exc), 1)
        typer.echo(message, err=True)
        raise typer.Exit(code) from None


def emit(data: Any, as_json: bool, render: Callable[[Any], object]) -> None:
    if as_json:
        typer.echo(json.dumps(finite(data), indent=2, default=str, ensure_ascii=False, allow_nan=False))
    else:
        render(data)
