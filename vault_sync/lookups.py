"""Reading the index for operations: a note by id, path or name; its view; the supersession
chain (which memory replaces which, the newest of a chain, the loops a person wrote).

A supersession is a pair of frontmatter links (`supersedes` on the new note, `superseded_by`
on the old), indexed as link kinds `related:supersedes` and `related:superseded_by`, so a
hand-written `superseded_by` counts like the engine's. Chains resolve to the newest note.
In a loop written by hand every member counts as current.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .engine import Engine
from .errors import Ambiguous, NotFound
from .index import queries
from .index.fragments import SUPERSEDED_BY
from .index.resolver import build_resolver
from .limits import REF_CHARS, check_ref, quote, spellings
from .links import strip_md
from .views import note_view


def resolve(engine: Engine, ref: str, kinds: tuple[str, ...] | None = None) -> sqlite3.Row:
    """An indexed note by memory id or vault-relative path."""
    if not isinstance(ref, str) or not ref.strip():
        raise NotFound("no note given: pass a memory id or a path inside the vault")
    ref = check_ref(ref).strip()
    rows = engine.store.notes_with_id(ref)
    if not rows:
        row = None
        for spelling in spellings(ref):  # an NFD path from macOS finds the NFC note, and back
            rel = engine.layout.safe_rel(spelling)
            row = engine.store.note(rel) or engine.store.note(rel + ".md")
            if row is None and "/" not in rel:
                row = by_name(engine, rel)
            if row is not None:
                break
        rows = [row] if row is not None else []
    if kinds:
        rows = [r for r in rows if r["kind"] in kinds] or rows
    if not rows:
        raise NotFound(f"no note with id or path {quote(ref, REF_CHARS)}")
    if len(rows) > 1:
        raise Ambiguous(f"{quote(ref, REF_CHARS)} matches {len(rows)} notes: {', '.join(r['path'] for r in rows)}")
    return rows[0]


def indexed(engine: Engine, rel: str) -> sqlite3.Row:
    """The index row of a note an operation just wrote (NotFound if it went meanwhile)."""
    row = engine.store.note(rel)
    if row is None:
        raise NotFound(f"{rel} is no longer in the vault")
    return row


def by_name(engine: Engine, name: str) -> sqlite3.Row | None:
    rows = queries.notes_named(engine.store, strip_md(name).lower())
    if len(rows) > 1:
        raise Ambiguous(f"{name!r} names {len(rows)} notes: {', '.join(r['path'] for r in rows)}")
    return rows[0] if rows else None


def view(engine: Engine, row: sqlite3.Row) -> dict[str, Any]:
    problems = queries.problem_causes(engine.store, row["path"])
    return note_view(engine.params, row, engine.store.tags_of(row["rowid"]), problems, engine.now())


def note(engine: Engine, ref: str) -> dict[str, Any]:
    """The note's view, with `superseded_by`: the newest note of its chain that holds now
    (None when nothing supersedes it, or a cycle stops the walk)."""
    row = resolve(engine, ref)
    out = view(engine, row)
    out["superseded_by"] = newest(engine, row["path"]) if queries.any_superseded(engine.store) else None
    return out


# -- the supersession chain --
def _graph(engine: Engine) -> tuple[dict[str, set[str]], list[list[str]]]:
    """(the successors, the loops), kept for one state of the index: search reads them on
    every query once a vault holds a supersession (about 70 ms at 1,000 of them: time a search on a vault where 1,000
    memories are superseded)."""
    key = engine.store.change_signature()
    hit = engine.runtime.supersession
    if hit is not None and hit[0] == key:
        return hit[1], hit[2]
    succ = _read_edges(engine)
    loops = _loops(succ)
    engine.runtime.supersession = (key, succ, loops)
    return succ, loops


def _edges(engine: Engine) -> dict[str, set[str]]:
    """old path -> the paths said to supersede it (read only: shared until the index changes)."""
    return _graph(engine)[0]


def _read_edges(engine: Engine) -> dict[str, set[str]]:
    """old path -> the paths said to supersede it (both keys, resolved like any wikilink)."""
    resolver = build_resolver(engine.store)
    succ: dict[str, set[str]] = {}
    for r in queries.supersession_links(engine.store):
        dst = resolver.resolve(r["target"], r["src"], bool(r["markdown"]))
        if dst is None or dst == r["src"]:
            continue
        old, new = (r["src"], dst) if r["kind"] == SUPERSEDED_BY else (dst, r["src"])
        succ.setdefault(old, set()).add(new)
    return succ


def successors_of(engine: Engine, path: str) -> set[str]:
    return _edges(engine).get(path, set())


def chain_after(engine: Engine, path: str, succ: dict[str, set[str]] | None = None) -> tuple[list[str], bool]:
    """The notes after `path`, in order, to the newest; and whether a cycle stopped the walk."""
    succ = _edges(engine) if succ is None else succ
    out: list[str] = []
    seen = {path}
    cur = path
    archive = engine.layout.archive + "/"
    while succ.get(cur):
        # where a hand-written fork names two successors, one still in use before an archived one
        nxt = min(succ[cur], key=lambda p: (p.startswith(archive), p))
        if nxt in seen:
            return out, True
        seen.add(nxt)
        out.append(nxt)
        cur = nxt
    return out, False


def chain(engine: Engine, path: str) -> dict[str, Any]:
    """The fact's history through `path`: oldest first, the newest last."""
    succ = _edges(engine)
    pred: dict[str, set[str]] = {}
    for old, news in succ.items():
        for new in news:
            pred.setdefault(new, set()).add(old)
    before: list[str] = []
    seen = {path}
    cur, cycle = path, False
    while pred.get(cur):
        prev = sorted(pred[cur])[0]
        if prev in seen:
            cycle = True
            break
        seen.add(prev)
        before.append(prev)
        cur = prev
    after, cycle_after = chain_after(engine, path, succ)
    return {
        "chain": list(reversed(before)) + [path] + after,
        "current": (after or [path])[-1],
        "cycle": cycle or cycle_after,
    }


def newest(engine: Engine, path: str, succ: dict[str, set[str]] | None = None) -> str | None:
    after, cycle = chain_after(engine, path, succ)
    return None if cycle or not after else after[-1]


def reaches(succ: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether `goal` lies on the chain after `start` (any branch)."""
    todo, seen = [start], {start}
    while todo:
        for nxt in succ.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def _loops(succ: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more notes (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def enter(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)

    for root in sorted(succ):
        if root in index:
            continue
        enter(root)
        work = [(root, iter(sorted(succ.get(root, ()))))]
        while work:
            node, nexts = work[-1]
            for nxt in nexts:
                if nxt not in index:
                    enter(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return sorted(groups)


def cycles(engine: Engine) -> list[list[str]]:
    """Every supersession cycle, each once (its paths sorted), for status."""
    return _graph(engine)[1]


def not_current(engine: Engine) -> set[str]:
    """Memories that are not the current answer: marked superseded in their own frontmatter
    (`superseded_by` or `status: superseded`), except the members of a hand-written loop,
    which are all read as current."""
    marked = queries.superseded_paths(engine.store)
    if not marked:
        return marked
    return marked - {p for group in cycles(engine) for p in group}


def current_despite_marks(engine: Engine) -> list[int]:
    """Rowids of loop members that are marked superseded: the SQL filter lets them through."""
    loops = cycles(engine) if queries.any_superseded(engine.store) else []
    if not loops:
        return []
    members = sorted(queries.superseded_paths(engine.store) & {p for group in loops for p in group})
    return sorted(queries.rowids_of(engine.store, members).values())


def successors_map(engine: Engine) -> dict[str, set[str]]:
    return _edges(engine)
