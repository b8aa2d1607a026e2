"""CLI commands `import` and `export` (registered on bridge.cli.app): moving memories in
from other tools and out again (vault_sync.transfer)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from . import output
from .cli_app import JsonOpt, VaultOpt, app, emit, run

FORMATS = "jsonl, cortexgraph, mem0, basic-memory, markdown, chat"


def render_import(r: dict[str, Any]) -> None:
    verb = "would be " if r["dry_run"] else ""
    output.console.print(
        f"{r['source']}: {r['created']} {verb}created, {r['reinforced']} {verb}reinforced, "
        f"{r['skipped']} already imported, {r['refused']} refused"
    )
    for c in r["would_create"]:
        output.console.print(f"  create {c['where']}: {c['title']}")
    for c in r["reinforcements"]:
        output.console.print(f"  reinforce {c['twin']} ({c['where']})")
    for c in r["refusals"]:
        output.console.print(f"  [red]refused[/] {c['where']} (id {c['id']}): {c['cause']}")
    for c in r.get("replaced", []):
        output.console.print(f"  not imported {c['where']} (id {c['id']}): superseded in the vault ({c['note']})")
    if r.get("links"):
        output.console.print(f"{r['links']} relation(s) {verb}written as links")
    for u in r.get("unlinked", []):
        output.console.print(f"  relation kept as text: {u['where']} {u['type']} -> {u['to']} ({u['cause']})")
    if "log" in r:  # what the source's append-only log held, and what replaying it left
        m, rel = r["log"]["memories"], r["log"]["relations"]
        output.console.print(
            f"log: {m['records']} memory record(s) for {m['ids']} id(s), {m['tombstones']} "
            f"deletion(s) -> {m['kept']} memory(ies)"
        )
        output.console.print(
            f"log: {rel['records']} relation record(s), {rel['tombstones']} deletion(s) -> "
            f"{rel['kept']} relation(s), {rel['orphaned']} from a deleted memory"
        )
    for d in r.get("duplicate_permalinks", []):
        kept = ", ".join(f"{f} as {i}" for f, i in zip(d["files"], d["ids"]))
        output.console.print(f"  permalink {d['permalink']} is used by {len(d['files'])} files: imported {kept}")


@app.command("import")
def import_(
    fmt: str = typer.Argument(..., metavar="FORMAT", help=f"One of {FORMATS}."),
    path: Path = typer.Argument(..., help="The file or folder to import (only read, never changed)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be created, reinforced and refused."),
    tag: Optional[str] = typer.Option(None, "--tag", help="Add this tag to every imported memory."),
    project: Optional[str] = typer.Option(
        None, "--project", help="File every imported memory under this project (default: shared)."
    ),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Import memories from another tool (secrets refused, duplicates reinforced, re-runs add nothing)."""
    from .context import open_service

    def go() -> None:
        with open_service(vault) as svc:
            with output.progress("importing", enabled=not as_json) as bar:
                result = svc.import_memories(fmt, path, dry_run=dry_run, tag=tag, progress=bar, project=project)
            emit(result, as_json, render_import)

    run(go)


@app.command()
def export(
    fmt: str = typer.Option("jsonl", "--format", help="jsonl (round-trips through `import jsonl`) or csv."),
    scope: str = typer.Option("all", "--scope", help="stm, ltm or all (with the archive)."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Write to this file (outside the vault) instead of standard output."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file (its permissions are kept)."),
    vault: Optional[Path] = VaultOpt,
) -> None:
    """Export every memory: text, owned keys, links and path."""
    from .context import open_service

    def go() -> None:
        with open_service(vault) as svc:
            if out is None:
                for chunk in svc.export(fmt, scope):
                    sys.stdout.write(chunk)
                return
            svc.export_to(out, fmt, scope, force)

    run(go)
