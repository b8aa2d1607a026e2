"""CLI commands for the memory lifecycle (registered on bridge.cli.app; search and the rest follow in
cli_search.py)."""

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
    cli_project,
    described,
    emit,
    project_args,
    run,
    tag_list,
)
from .operations import call
from .operations import save as save_op


def _moves(result: dict[str, Any], key: str) -> None:
    verb = key.replace("_", " ")
    if result.get("dry_run"):
        cands = result.get("candidates", [])
        output.console.print(f"{len(cands)} candidate(s) (dry run, nothing changed):")
        output.table(cands, [("title", "title"), ("score", "score"), ("reason", "reason")])
    for path in result.get("held", []):
        output.console.print(f"waits: {path} is open in the editor (moved on a later run once it is closed)")
    if result.get("dry_run"):
        return
    for m in result.get(key, []):
        output.console.print(f"{verb}: {m['from']} -> {m['to']}  ({m['reason']})")
    for e in result.get("errors", []):
        output.console.print(f"[red]not {verb}[/]: {e['path']}: {e['error']}")
    if not result.get(key) and not result.get("errors"):
        output.console.print(f"nothing {verb}")


@app.command()
def save(
    text: Optional[str] = typer.Argument(None, help="The memory; read from stdin when omitted."),
    tags: Optional[str] = TagsOpt,
    title: Optional[str] = typer.Option(None, "--title", help=described(S.SaveArgs, "title")),
    strength: float = typer.Option(1.0, "--strength", help=described(S.SaveArgs, "strength")),
    supersedes: Optional[List[str]] = typer.Option(
        None, "--supersedes", help="A memory (id or path) this one replaces; repeatable."
    ),
    project: Optional[str] = ProjectOpt,
    shared: bool = typer.Option(False, "--shared", help="Save it for every project (no `project` key)."),
    across_projects: bool = typer.Option(
        False, "--across-projects", help="Let --supersedes name another project's memory."
    ),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Save a new short-term memory; a fact already held, in any words, reinforces its memory.

    Secrets are refused. It is filed under the current folder's project unless --shared
    (docs/projects.md). Without a daemon it is written and indexed at once without loading the
    embedding model; meaning search catches up on it once a daemon runs."""
    if text is None:
        text = sys.stdin.read()

    def render(r: dict[str, Any]) -> None:
        if r.get("reinforced"):
            output.console.print(r["message"])
        else:
            output.console.print(f"saved {r['note']['path']} (id {r['note']['id']})")
        if r.get("repeat_check"):
            output.console.print(f"  repeat check: {r['repeat_check']}")
        for n in r.get("near_duplicates", []):
            output.console.print(f"  similar to {n['path']} ({n['similarity']:.2f})")
        for old in r.get("superseded", []):
            output.console.print(f"  supersedes {old}")
        for n in r.get("may_supersede", []):
            output.console.print(f"  may supersede {n['path']} ({n['similarity']:.2f})")

    extra: dict[str, Any] = {"supersedes": supersedes} if supersedes else {}
    if across_projects:
        extra["across_projects"] = True

    def go() -> None:
        filed = None if shared else cli_project(vault, project)
        result, notice = save_op(
            vault, text=text, tags=tag_list(tags), title=title, strength=strength, project=filed, **extra
        )
        if notice:
            print(f"mnemovault: {notice}", file=sys.stderr)
        emit(result, as_json, render)

    run(go)


@app.command()
def brief(
    topic: Optional[str] = typer.Argument(None, help=described(S.BriefArgs, "topic")),
    max_tokens: int = typer.Option(800, "--max-tokens", help=described(S.BriefArgs, "max_tokens")),
    project: Optional[str] = ProjectOpt,
    all_projects: bool = AllProjectsOpt,
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """What an assistant should know: current memories on the topic and the strongest, within a budget."""
    extra = {"topic": topic} if topic is not None else {}
    run(
        lambda: emit(
            call(vault, "brief", max_tokens=max_tokens, **extra, **project_args(vault, project, all_projects)),
            as_json,
            lambda r: output.console.print(r["text"], markup=False),
        )
    )


@app.command()
def supersede(
    old: str = typer.Argument(..., help=described(S.SupersedeArgs, "old")),
    by: str = typer.Option(..., "--by", help=described(S.SupersedeArgs, "by")),
    across_projects: bool = typer.Option(
        False, "--across-projects", help=described(S.SupersedeArgs, "across_projects")
    ),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Mark a memory as superseded by a newer one (links both ways; GC archives the old one)."""

    def render(r: dict[str, Any]) -> None:
        output.console.print(f"{r['superseded']['path']} is superseded by {r['by']['path']}")

    extra = {"across_projects": True} if across_projects else {}
    run(lambda: emit(call(vault, "supersede", old=old, by=by, **extra), as_json, render))


@app.command()
def touch(
    ref: str = typer.Argument(..., help=described(S.TouchArgs, "ref")),
    boost: bool = typer.Option(False, "--boost", help=described(S.TouchArgs, "boost")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Reinforce a memory: last_used = now, use_count + 1."""

    def render(r: dict[str, Any]) -> None:
        output.console.print(
            f"{r['note']['path']}: score {r['old_score']:.3f} -> {r['new_score']:.3f} (uses {r['note']['use_count']})"
        )

    run(lambda: emit(call(vault, "touch", ref=ref, boost=boost), as_json, render))


def _pin_line(r: dict[str, Any]) -> None:
    note = r["note"]
    if not r["changed"]:
        output.console.print(f"{note['path']} was already {'pinned' if r['pinned'] else 'not pinned'}", markup=False)
    elif r["pinned"]:
        output.console.print(f"{note['path']}: pinned; it keeps its score {note['score']:.3f}", markup=False)
    else:
        output.console.print(f"{note['path']}: unpinned; score {note['score']:.3f}, ageing again", markup=False)


@app.command()
def pin(
    ref: str = typer.Argument(..., help=described(S.RefArgs, "ref")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Pin a memory: it keeps its score, gets no due dates, is never reviewed or archived on its own."""
    run(lambda: emit(call(vault, "pin", ref=ref), as_json, _pin_line))


@app.command()
def unpin(
    ref: str = typer.Argument(..., help=described(S.UnpinArgs, "ref")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Unpin a memory: it ages from its last use again (GC archives one that fell below the threshold)."""
    run(lambda: emit(call(vault, "unpin", ref=ref), as_json, _pin_line))


@app.command()
def observe(
    refs: List[str] = typer.Argument(..., help=described(S.ObserveArgs, "refs")),
    context_tags: Optional[str] = typer.Option(None, "--context-tags", help="Tags of the context of use."),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Record that memories were used in a context; cross-domain use strengthens them."""

    def render(r: dict[str, Any]) -> None:
        for o in r["observed"]:
            extra = " (cross-domain)" if o.get("cross_domain") else ""
            output.console.print(f"{o['note']['path']}: {o['old_score']:.3f} -> {o['new_score']:.3f}{extra}")
        for e in r["errors"]:
            output.console.print(f"[red]{e['ref']}[/]: {e['error']}")

    run(lambda: emit(call(vault, "observe", refs=refs, context_tags=tag_list(context_tags)), as_json, render))


@app.command()
def thread(
    ref: str = typer.Argument(..., help=described(S.ThreadArgs, "ref")),
    before: int = typer.Option(5, "--before", "-b", help=described(S.ThreadArgs, "before")),
    after: int = typer.Option(5, "--after", "-a", help=described(S.ThreadArgs, "after")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """The memories said around one memory in its conversation, in the order they were said."""

    def render(r: dict[str, Any]) -> None:
        output.console.print(
            f"conversation {r['conversation']}" + (f" ({r['earlier']} earlier)" if r["earlier"] else ""), markup=False
        )
        for t in r["turns"]:
            mark = ">" if t["this"] else " "
            output.console.print(f"{mark} {t['said_at'] or '-'}  {t['text']}  [{t['path']}]", markup=False)
        if r["later"]:
            output.console.print(f"({r['later']} later)", markup=False)

    run(lambda: emit(call(vault, "thread", ref=ref, before=before, after=after), as_json, render))


@app.command()
def review(
    ref: Optional[str] = typer.Argument(None, help="With --grade: the memory reviewed (id or path)."),
    grade: Optional[str] = typer.Option(None, "--grade", help=described(S.ReviewMemoryArgs, "grade")),
    limit: int = typer.Option(20, "--limit", "-n", help=described(S.ReviewArgs, "limit")),
    project: Optional[str] = ProjectOpt,
    all_projects: bool = AllProjectsOpt,
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Memories in the danger zone, highest review priority first; with REF --grade, review one."""

    def go() -> None:
        if (ref is None) != (grade is None):
            raise InvalidInput("give a memory and --grade together (remember or fade), or neither to list the queue")
        if ref is not None:
            emit(
                call(vault, "review_memory", ref=ref, grade=grade),
                as_json,
                lambda r: output.console.print(
                    f"{r['grade']}: {r['note']['path']} score {r['old_score']:.3f} -> {r['new_score']:.3f}"
                ),
            )
            return
        emit(
            call(vault, "review", limit=limit, **{"all_projects": False, **project_args(vault, project, all_projects)}),
            as_json,
            lambda items: output.table(
                items,
                [("title", "title"), ("score", "score"), ("review_priority", "priority"), ("path", "path")],
                "review queue",
            ),
        )

    run(go)


@app.command()
def recent(
    since: Optional[str] = typer.Option(None, "--since", help=described(S.RecentArgs, "since")),
    limit: int = typer.Option(20, "--limit", "-n", help=described(S.RecentArgs, "limit")),
    offset: int = typer.Option(0, "--offset", min=0, help=described(S.RecentArgs, "offset")),
    scope: str = typer.Option("memories", "--scope", help=described(S.RecentArgs, "scope")),
    project: Optional[str] = ProjectOpt,
    all_projects: bool = AllProjectsOpt,
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Memories newest first, without a query (one page; --offset for the next)."""
    run(
        lambda: emit(
            call(
                vault,
                "recent",
                limit=limit,
                offset=offset,
                since=since,
                scope=scope,
                **project_args(vault, project, all_projects),
            ),
            as_json,
            lambda page: output.table(
                page["items"],
                [("created", "created"), ("title", "title"), ("path", "path")],
                f"{page['total']} memories, from {page['offset']}",
            ),
        )
    )


@app.command()
def promote(
    ref: Optional[str] = typer.Argument(None, help="Memory id or path; omit with --auto."),
    auto: bool = typer.Option(False, "--auto", help="Every candidate."),
    apply: bool = typer.Option(False, "--apply", help="Move the notes (without it: a preview, as on every front end)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Preview only (the default; kept for old scripts)."),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Preview moving memories to LTM with backlinks; --apply moves them (links elsewhere follow)."""

    def go() -> None:
        if apply and dry_run:
            raise InvalidInput("--apply and --dry-run contradict each other; give one")
        if not ref and not auto:
            raise InvalidInput("give a memory id or path, or --auto (add --apply to move them)")
        if ref and auto:
            raise InvalidInput("give a memory id or path, or --auto, not both")
        preview = not apply
        emit(
            call(vault, "promote", ref=ref, dry_run=preview) if ref else call(vault, "promote_all", dry_run=preview),
            as_json,
            lambda r: _moves(r, "promoted"),
        )

    run(go)


@app.command()
def gc(
    apply: bool = typer.Option(
        False, "--apply", help="Archive the candidates (without it: a preview, as on every front end)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Preview only (the default; kept for old scripts)."),
    delete: bool = typer.Option(False, "--delete", help=described(S.GcArgs, "delete")),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", help=described(S.GcArgs, "limit")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Preview memories below the forget threshold; --apply archives them (pinned ones are immune)."""

    def go() -> None:
        if apply and dry_run:
            raise InvalidInput("--apply and --dry-run contradict each other; give one")
        emit(call(vault, "gc", dry_run=not apply, delete=delete, limit=limit), as_json, lambda r: _moves(r, "archived"))

    run(go)


@app.command()
def archive(
    ref: str = typer.Argument(..., help=described(S.RefArgs, "ref")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Archive one memory now."""
    run(
        lambda: emit(
            call(vault, "archive", ref=ref),
            as_json,
            lambda m: output.console.print(f"archived: {m['from']} -> {m['to']}"),
        )
    )


@app.command()
def restore(
    ref: str = typer.Argument(..., help=described(S.RestoreArgs, "ref")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Bring an archived memory back where it was archived from: STM (active), or LTM (promoted)."""
    run(
        lambda: emit(
            call(vault, "restore", ref=ref),
            as_json,
            lambda m: output.console.print(f"restored: {m['from']} -> {m['to']}"),
        )
    )


@app.command()
def relate(
    a: str = typer.Argument(..., help=described(S.RelateArgs, "a")),
    b: str = typer.Argument(..., help=described(S.RelateArgs, "b")),
    rel_type: str = typer.Option("related", "--type", help=described(S.RelateArgs, "rel_type")),
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Link memory A to B in A's frontmatter."""
    run(
        lambda: emit(
            call(vault, "relate", a=a, b=b, rel_type=rel_type),
            as_json,
            lambda r: output.console.print(
                f"{r['from']} -[{r['type']}]-> {r['to']}" + ("" if r["added"] else " (already there)")
            ),
        )
    )


@app.command()
def graph(vault: Optional[Path] = VaultOpt, as_json: bool = JsonOpt) -> None:
    """The graph of memories and their links."""
    run(
        lambda: emit(
            call(vault, "graph"),
            as_json,
            lambda g: output.console.print(
                f"{len(g['nodes'])} nodes, {len(g['edges'])} edges (use --json for the graph)"
            ),
        )
    )
