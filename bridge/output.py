"""Human-readable renderings of command results (the --json forms are the raw dicts)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    from rich.console import Console


class _LazyConsole:
    """rich is imported on first use: JSON output and daemon calls never pay for it."""

    _real: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if _LazyConsole._real is None:
            from rich.console import Console

            _LazyConsole._real = Console()
        return getattr(_LazyConsole._real, name)


console = _LazyConsole()


@contextmanager
def progress(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback drawing a bar on a terminal; None elsewhere."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def render_sync(r: dict[str, Any]) -> None:
    console.print(
        f"indexed in {r['seconds']:.2f}s: {r['added']} added, {r['updated']} updated, {r['moved']} moved, "
        f"{r['removed']} removed, {r['unchanged']} unchanged; {r['problems']} with problems, {r['conflicts']} "
        "conflict copies"
    )
    for path, why in sorted(r.get("skipped", {}).items()):
        console.print(f"  skipped {path}: {why}")
    for fix in r.get("id_fixes", []):
        console.print(f"  {fix}")
    if r.get("index_repair"):
        repair = r["index_repair"]
        console.print(f"  index repaired: {', '.join(repair['damaged'])} made anew ({repair['reason']})")


def render_sweep(r: dict[str, Any]) -> None:
    console.print(
        f"swept {r['scanned']} memories in {r['seconds']:.2f}s: {r['written']} written, {r['unchanged']} unchanged, "
        f"{r['quiet']} recently edited (left for later), {len(r['invalid'])} with problems (left alone)"
        + (f", {r['held']} open in the editor (written once it is closed or idle)" if r.get("held") else "")
    )
    for item in r["invalid"]:
        console.print(f"  [yellow]{item['path']}[/]: {item['cause']}")
    for item in r["errors"]:
        console.print(f"  [red]{item['path']}[/]: {item['cause']}")


def render_status(s: dict[str, Any]) -> None:
    c = s["counts"]
    console.print(f"[bold]{s['vault']}[/]")
    console.print(
        f"  memories: {c['stm']} short-term, {c['ltm']} long-term, {c['archive']} archived; {c['note']} other notes"
    )
    if s["stm_states"]:
        console.print(
            "  short-term: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(s["stm_states"].items()))
        )
    if s.get("scores_older_than_refresh"):
        console.print(
            f"  written scores older than the refresh window: {s['scores_older_than_refresh']} (the next sweep "
            "refreshes them)"
        )
    console.print(f"  last sync: {s['last_sync'] or 'never'}; dangling links: {s['dangling_links']}")
    emb = s["embeddings"]
    console.print(f"  embeddings: {'on' if emb['enabled'] else 'off'} ({emb['done']}/{emb['total']})")
    if s.get("watcher"):
        w = s["watcher"]
        console.print(f"  watcher: {w['mode']}" + (f" ({w['last_error']})" if w.get("last_error") else ""))
        if w.get("last_reconcile"):
            r = w["last_reconcile"]
            console.print(
                f"  [yellow]events were lost[/] ({r['reason']}) at {r['at']}: reconciled with the vault, "
                f"{r['changes']} change(s) found ({w['reconciles']} time(s) since start)"
            )
    if s.get("index_repair"):
        r = s["index_repair"]
        console.print(
            f"  [yellow]index repaired[/] at {r['at']}: damage in {', '.join(r['damaged'])} ({r['reason']}); "
            f"made the {r['remade']} anew and read the vault again"
        )
    merged = s.get("conflicts_merged") or {}
    if merged.get("count"):
        console.print(f"  merged {merged['count']} conflict copies by themselves (last at {merged['last_at']})")
    render_devices(s.get("devices"))
    if s["conflicts"]:
        console.print(f"  [yellow]{len(s['conflicts'])} sync-conflict copies[/] (not indexed):")
        for item in s["conflicts"]:
            console.print(f"    {item['path']} (copy of {item['original']})")
    if s["problems"]:
        console.print(f"  [yellow]{len(s['problems'])} problems[/]:")
        for p in s["problems"]:
            console.print(f"    {p['path']}: {p['cause']}")
    for q in s.get("quarantined") or []:
        console.print(f"  [red]unfinished move set aside[/] {q['file']}: {q['cause']}\n    {q['todo']}")
    err = (s.get("background") or {}).get("last_error")
    if err:
        console.print(f"  [red]background {err['task']} failed[/] at {err['at']}: {err['message']}")


_DIFFERS = {
    "owned keys": "only mnemovault's keys differ: the daemon merges it",
    "nothing": "the same bytes: the daemon merges it",
    "text": "your text differs: compare, then `mnemovault conflicts resolve` (keeps the text of both)",
    "original gone": "the note is gone: `conflicts resolve` gives the copy its name",
    "unreadable": "cannot be read",
}


def conflicts(items: list[dict[str, Any]]) -> None:
    """Each conflict copy, what differs, and the diff of the person's text (note -> copy)."""
    for item in items:
        said = _DIFFERS.get(item.get("differs", ""), item.get("differs", ""))
        console.print(
            f"{item['path']} (copy of {item['original']}): {said}", markup=False, highlight=False, soft_wrap=True
        )
        if item.get("error"):
            console.print(f"  {item['error']}", markup=False, highlight=False, soft_wrap=True)
        for line in item.get("diff") or []:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else None
            console.print("  " + line, style=style, markup=False, highlight=False, soft_wrap=True)
        if item.get("diff_cut"):
            console.print(
                f"  ... {item['diff_cut']} more lines of the diff", markup=False, highlight=False, soft_wrap=True
            )


def render_devices(d: dict[str, Any] | None) -> None:
    """Who holds the lease (runs background writes) and until when, the other devices' last
    heartbeats, and conflict copies of the device files (splits are among the problems)."""
    if not d:
        return
    h = d.get("holder")
    if h is None:
        console.print("  lease: no device holds it (the next daemon to run takes it)", markup=False)
    else:
        who = h["device"] + (" (this device)" if h["device"] == d.get("this_device") else "")
        how = " (an earlier version's lease.json)" if h.get("legacy") else f" since {h['since']}"
        console.print(f"  lease: {who}{how}, until {h['until']}", markup=False, highlight=False)
    for r in d.get("devices") or []:
        if h is not None and r["device"] == h["device"]:
            continue
        state = "running" if r.get("running") else "not running"
        mark = " (this device)" if r.get("this") else ""
        console.print(f"  device {r['device']}{mark}: {state}, last seen {r['last_seen']}", markup=False)
    copies = d.get("conflict_copies") or []
    if copies:
        console.print(f"  [yellow]{len(copies)} conflict copies of mnemovault's own files[/] (never read):")
        for path in copies:
            console.print(f"    {path}", markup=False, highlight=False)


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str]], title: str | None = None) -> None:
    from rich.table import Table

    t = Table(title=title, show_lines=False)
    for _, header in columns:
        t.add_column(header)
    for row in rows:
        t.add_row(*[_fmt(row.get(key)) for key, _ in columns])
    console.print(t)


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def render_dangling(page: dict[str, Any]) -> None:
    """One page of dangling links: source -> target, then where the next page starts."""
    for link in page["links"]:
        console.print(f"{link['source']} -> {link['target']}", markup=False, highlight=False)
    shown = len(page["links"])
    more = f"; next: --offset {page['next_offset']}" if page["next_offset"] is not None else ""
    console.print(
        f"{page['offset'] + 1 if shown else 0}-{page['offset'] + shown} of {page['total']} dangling links{more}",
        markup=False,
        highlight=False,
    )


def render_search(r: dict[str, Any]) -> None:
    from rich.markup import escape

    if r.get("notice"):
        console.print(f"[yellow]{escape(r['notice'])}[/]")
    if r.get("all_projects"):
        console.print("every project", markup=False, highlight=False)
    elif r.get("project"):
        console.print(f"project {r['project']} and shared memories", markup=False, highlight=False)
    if not r["results"]:
        console.print("no memory or note matches", markup=False, highlight=False)
    for i, hit in enumerate(r["results"], 1):
        mark = " \\[review]" if hit.get("review") else ""
        if hit.get("status") == "archived":
            mark += " \\[archived]"
        console.print(f"{i:2}. [bold]{escape(hit['title'])}[/] ({escape(hit['path'])}) {hit['score']:.3f}{mark}")
        facts = [
            f"id {hit['id']}" if hit.get("id") else "",
            f"project {hit['project']}" if hit.get("project") else "",
            hit.get("status") or "",
            f"created {hit['created']}" if hit.get("created") else "",
            f"last used {hit['last_used']}" if hit.get("last_used") else "",
            " ".join(f"#{t}" for t in hit.get("tags") or []),
        ]
        if any(facts):  # one line, never wrapped: the id is copied from it
            console.print("    " + " · ".join(f for f in facts if f), markup=False, highlight=False, soft_wrap=True)
        lines = [
            f"    superseded by {hit['superseded_by']}" if hit.get("superseded_by") else "",
            f"    {hit['snippet']}" if hit.get("snippet") else "",
        ]
        for line in filter(None, lines):
            console.print(line, markup=False, highlight=False)
