"""Supersession: a newer memory replaces an older fact, as links a person can read and edit.

The new note lists `supersedes: ["[[old]]"]`; the old one gets `superseded_by: "[[new]]"` and
`status: superseded` (it keeps its text, and the next GC archives it whatever its score).
The index already holds both keys as frontmatter links (kinds `related:supersedes` and
`related:superseded_by`), so a hand-written `superseded_by` counts like ours. Chains resolve
to the newest note; a cycle is reported, never followed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..edit import patch_bytes
from ..errors import InvalidInput, NoteProblem
from ..index import queries
from ..index.resolver import build_resolver
from ..limits import check_refs
from ..note import parse_note, stem_of
from .moves import check_size

if TYPE_CHECKING:
    from ..service import MemoryService

MEMORY_KINDS = ("stm", "ltm", "archive")


def link_name(svc: "MemoryService", path: str, where: str) -> str:
    """How to write a link from `where` to `path` so that it resolves there (stem, else path)."""
    stem = stem_of(path)
    return stem if build_resolver(svc.store).resolve(stem, where) == path else path[:-3]


def mark(svc: "MemoryService", old_row: Any, new_row: Any) -> dict[str, Any]:
    """Write both sides of one supersession (the caller holds the write lock)."""
    if old_row["path"] == new_row["path"]:
        raise InvalidInput("a memory cannot supersede itself")
    for row in (old_row, new_row):
        if row["kind"] not in MEMORY_KINDS:
            raise InvalidInput(f"{row['path']} is one of your notes; supersession is written on memories only")
        check_size(svc, row)
    to_old = f"[[{link_name(svc, old_row['path'], new_row['path'])}]]"
    to_new = f"[[{link_name(svc, new_row['path'], old_row['path'])}]]"

    def on_new(current: bytes) -> bytes | None:
        note = parse_note(new_row["path"], current)
        if not note.writable:
            raise NoteProblem(f"{new_row['path']}: fix its frontmatter first")
        existing = note.frontmatter.get("supersedes")
        items = list(existing) if isinstance(existing, list) else ([existing] if isinstance(existing, str) and existing.strip() else [])
        if any(isinstance(x, str) and x.strip().lower() == to_old.lower() for x in items):
            return None
        return patch_bytes(current, {"supersedes": items + [to_old]})

    def on_old(current: bytes) -> bytes | None:
        note = parse_note(old_row["path"], current)
        if not note.writable:
            raise NoteProblem(f"{old_row['path']}: fix its frontmatter first")
        fm = note.frontmatter
        if fm.get("superseded_by") == to_new and fm.get("status") == "superseded":
            return None
        return patch_bytes(current, {"superseded_by": to_new, "status": "superseded"})

    svc.writes.update(new_row["path"], on_new)
    svc.writes.update(old_row["path"], on_old)
    svc.writes.emit("superseded", {"old": old_row["path"], "new": new_row["path"]})
    return {"old": old_row["path"], "new": new_row["path"]}


def supersede(svc: "MemoryService", old: str, by: str) -> dict[str, Any]:
    """Mark `old` as superseded by `by` (ids or paths); returns both notes' views."""
    old_row, new_row = svc.resolve(old), svc.resolve(by)
    mark(svc, old_row, new_row)
    return {"superseded": svc.note(old_row["path"]), "by": svc.note(new_row["path"])}


def supersede_refs(svc: "MemoryService", refs: list[str] | None) -> list[Any]:
    """The rows a save's `supersedes` names, resolved and checked before anything is written."""
    if not refs:
        return []
    rows = [svc.resolve(r) for r in check_refs(refs)]
    for row in rows:
        if row["kind"] not in MEMORY_KINDS:
            raise InvalidInput(f"{row['path']} is one of your notes; only memories can be superseded")
    return rows


# -- reading the graph --
def _edges(svc: "MemoryService") -> dict[str, set[str]]:
    """old path -> the paths said to supersede it (both keys, resolved like any wikilink)."""
    resolver = build_resolver(svc.store)
    succ: dict[str, set[str]] = {}
    for r in queries.supersession_links(svc.store):
        dst = resolver.resolve(r["target"], r["src"], bool(r["markdown"]))
        if dst is None or dst == r["src"]:
            continue
        old, new = (r["src"], dst) if r["kind"] == queries.SUPERSEDED_BY else (dst, r["src"])
        succ.setdefault(old, set()).add(new)
    return succ


def successors_of(svc: "MemoryService", path: str) -> set[str]:
    return _edges(svc).get(path, set())


def chain_after(svc: "MemoryService", path: str, succ: dict[str, set[str]] | None = None) -> tuple[list[str], bool]:
    """The notes after `path`, in order, to the newest; and whether a cycle stopped the walk."""
    succ = _edges(svc) if succ is None else succ
    out: list[str] = []
    seen = {path}
    cur = path
    while succ.get(cur):
        nxt = sorted(succ[cur])[0]
        if nxt in seen:
            return out, True
        seen.add(nxt)
        out.append(nxt)
        cur = nxt
    return out, False


def chain(svc: "MemoryService", path: str) -> dict[str, Any]:
    """The fact's history through `path`: oldest first, the newest last."""
    succ = _edges(svc)
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
    after, cycle_after = chain_after(svc, path, succ)
    return {"chain": list(reversed(before)) + [path] + after, "current": (after or [path])[-1],
            "cycle": cycle or cycle_after}


def newest(svc: "MemoryService", path: str, succ: dict[str, set[str]] | None = None) -> str | None:
    after, cycle = chain_after(svc, path, succ)
    return None if cycle or not after else after[-1]


def cycles(svc: "MemoryService") -> list[list[str]]:
    """Every supersession cycle, each once (its paths sorted), for status."""
    succ = _edges(svc)
    found: set[tuple[str, ...]] = set()
    for start in succ:
        path = [start]
        seen = {start: 0}
        cur = start
        while succ.get(cur):
            cur = sorted(succ[cur])[0]
            if cur in seen:
                found.add(tuple(sorted(path[seen[cur]:])))
                break
            seen[cur] = len(path)
            path.append(cur)
    return [list(c) for c in sorted(found)]


def successors_map(svc: "MemoryService") -> dict[str, set[str]]:
    return _edges(svc)
