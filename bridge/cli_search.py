"""CLI commands for search and what works on the embeddings (search, embed, cluster, consolidate), and
sync-conflict copies (registered on bridge.cli.app after cli_memory's)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from vault_sync.errors import InvalidInput

from . import output
from . import schemas as S
from .cli_app import (
    AllProjectsOpt,
    JsonOpt,
    ProjectOpt,
    TagsOpt,
    VaultOpt,
    app,
    described,
    emit,
    project_args,
    run,
    tag_list,
)
from .operations import call
from .operations import search as search_op


@app.command()
def search(
    query: str = typer.Argument(..., help=described(S.SearchArgs, "query")),
    limit: int = typer.Option(10, "--limit", "-n", help=described(S.SearchArgs, "limit")),
    scope: str = typer.Option("all", "--scope", help=described(S.SearchArgs, "scope")),
    tags: Optional[str] = TagsOpt,
    since: Optional[str] = typer.Option(None, "--since", help=described(S.SearchArgs, "since")),
    until: Optional[str] = typer.Option(None, "--until", help=described(S.SearchArgs, "until")),
    used_since: Optional[str] = typer.Option(None, "--used-since", help=described(S.SearchArgs, "used_since")),
    include_superseded: bool = typer.Option(
        False, "--include-superseded", help=described(S.SearchArgs, "include_superseded")
    ),
    include_archived: Optional[bool] = typer.Option(
        None, "--include-archived/--no-include-archived", help=described(S.SearchArgs, "include_archived")
    ),
    project: Optional[str] = ProjectOpt,
    all_projects: bool = AllProjectsOpt,
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Search memories and notes: full text, plus meaning through a running daemon.

    Without a daemon: full text only, with a notice (loading the model for one query takes
    seconds). Scoped to the current folder's project and shared memories (docs/projects.md)."""
    extra: dict[str, object] = {
        k: v
        for k, v in (
            ("since", since),
            ("until", until),
            ("used_since", used_since),
            ("include_archived", include_archived),
        )
        if v is not None
    }
    if include_superseded:
        extra["include_superseded"] = True

    def go() -> None:
        extra.update(project_args(vault, project, all_projects))
        results, notice = search_op(vault, query=query, limit=limit, scope=scope, tags=tag_list(tags), **extra)
        if notice:
            print(f"mnemovault: {notice}", file=sys.stderr)
        emit(results, as_json, output.render_search)

    run(go)


@app.command()
def embed(
    status_only: bool = typer.Option(False, "--status", help="Show coverage only."),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Compute missing embeddings (with progress), or show coverage."""
    from .context import open_service

    def go() -> None:
        with open_service(vault, embeddings=True) as svc:
            if not status_only:
                with output.progress("embedding", enabled=not as_json) as bar:
                    svc.embed(progress=bar)
            emit(
                svc.embedding_status(),
                as_json,
                lambda s: output.console.print(f"embeddings: {s['done']}/{s['total']} ({s['model']})"),
            )

    run(go)


@app.command()
def cluster(
    threshold: float = typer.Option(0.83, "--threshold", help=described(S.ClusterArgs, "threshold")),
    project: Optional[str] = ProjectOpt,
    all_projects: bool = AllProjectsOpt,
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Groups of similar short-term memories, with a suggested action."""

    def render(clusters: list[dict[str, Any]]) -> None:
        for c in clusters:
            output.console.print(f"[bold]{c['id']}[/] cohesion {c['cohesion']:.2f} -> {c['action']}")
            for m in c["members"]:
                output.console.print(f"   {m['title']} ({m['path']})")

    run(
        lambda: emit(
            call(vault, "cluster", threshold=threshold, **project_args(vault, project, all_projects)), as_json, render
        )
    )


@app.command()
def consolidate(
    ids: List[str] = typer.Argument(..., help=described(S.ConsolidateArgs, "ids")),
    apply: bool = typer.Option(False, "--apply", help=described(S.ConsolidateArgs, "apply")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Merge similar memories into one note (preview unless --apply)."""
    run(
        lambda: emit(
            call(vault, "consolidate", ids=ids, apply=apply), as_json, lambda r: output.console.print_json(data=r)
        )
    )


conflicts_app = typer.Typer(
    help="Sync-conflict copies (Syncthing, Dropbox, OneDrive, iCloud, Obsidian Sync...).", no_args_is_help=True
)
app.add_typer(conflicts_app, name="conflicts")


@conflicts_app.command("list")
def conflicts_list(vault: Optional[Path] = VaultOpt, as_json: bool = JsonOpt) -> None:
    """Conflict copies found in the vault (never indexed as memories), each with a diff of your text."""
    run(
        lambda: emit(
            call(vault, "conflicts"),
            as_json,
            lambda items: output.conflicts(items) if items else output.console.print("no conflict copies"),
        )
    )


@conflicts_app.command("resolve")
def conflicts_resolve(
    path: Optional[str] = typer.Argument(None, help="The conflict copy's path; omit with --all."),
    all_: bool = typer.Option(False, "--all", help="Resolve every memory's conflict copy."),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Merge a memory's conflict copy into the original (counters by max, text kept from both)."""

    def go() -> None:
        if not path and not all_:
            raise InvalidInput("give the conflict copy's path, or --all")
        paths = [path] if path else [c["path"] for c in call(vault, "conflicts")]
        results = []
        for p in paths:
            try:
                results.append(call(vault, "resolve_conflict", path=p))
            except InvalidInput as exc:
                results.append({"conflict": p, "action": "skipped", "reason": str(exc)})
        emit(
            results,
            as_json,
            lambda rs: [
                output.console.print(
                    f"{r['conflict']}: {r['action']}" + (f" ({r['reason']})" if r.get("reason") else "")
                )
                for r in rs
            ],
        )

    run(go)
