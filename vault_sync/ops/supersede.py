"""Supersession: a newer memory replaces an older fact, as links a person can read and edit.

The new note lists `supersedes: ["[[old]]"]`; the old one gets `superseded_by: "[[new]]"` and
`status: superseded` (it keeps its text, and the next GC archives it whatever its score).
The index already holds both keys as frontmatter links (kinds `related:supersedes` and
`related:superseded_by`), so a hand-written `superseded_by` counts like ours. Chains resolve
to the newest note. A supersession that would close a loop is refused (SupersessionCycle);
one a person writes by hand is read safely: every member of the loop counts as current
(nothing in it is hidden from search or archived for being superseded) and `status` lists
it under `supersession_cycles`. Superseding a note again moves its links: the note that
superseded it before no longer lists it in `supersedes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..edit import patch_bytes
from ..errors import InvalidInput, NoteProblem, SupersessionCycle
from ..index import queries
from ..index.resolver import build_resolver
from ..limits import check_refs
from ..links import WIKILINK, parse_wikilink
from ..note import parse_note, stem_of
from ..patch import REMOVE
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
    old_path, new_path = old_row["path"], new_row["path"]
    succ = _edges(svc)
    if _reaches(succ, new_path, old_path):
        raise SupersessionCycle(
            f"{old_path} cannot be superseded by {new_path}: {new_path} is itself superseded by {old_path} "
            "(directly or through its chain), and a fact's history cannot loop back; supersede the newest one instead")
    earlier = sorted(succ.get(old_path, set()) - {new_path})  # what superseded it before: their links move
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
    for path in earlier:
        _drop_back_link(svc, path, old_path)
    svc.writes.emit("superseded", {"old": old_row["path"], "new": new_row["path"]})
    return {"old": old_row["path"], "new": new_row["path"]}


def _drop_back_link(svc: "MemoryService", path: str, old: str) -> None:
    """Take `old` out of the `supersedes` list of a memory that no longer supersedes it (a
    person's own note is left as written)."""
    row = svc.store.note(path)
    if row is None or row["kind"] not in MEMORY_KINDS:
        return
    resolver = build_resolver(svc.store)

    def names_old(item: object) -> bool:
        m = WIKILINK.search(item) if isinstance(item, str) else None
        link = parse_wikilink(m.group(1), False) if m else None
        return link is not None and resolver.resolve(link.target, path) == old

    def transform(current: bytes) -> bytes | None:
        note = parse_note(path, current)
        if not note.writable:
            raise NoteProblem(f"{path}: fix its frontmatter first")
        existing = note.frontmatter.get("supersedes")
        items = list(existing) if isinstance(existing, list) else [existing]
        kept = [x for x in items if not names_old(x)]
        if len(kept) == len(items):
            return None
        return patch_bytes(current, {"supersedes": kept if kept and isinstance(existing, list) else REMOVE})

    svc.writes.update(path, transform)


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
def _graph(svc: "MemoryService") -> tuple[dict[str, set[str]], list[list[str]]]:
    """(the successors, the loops), kept for one state of the index: search reads them on
    every query once a vault holds a supersession (about 70 ms at 1,000 of them)."""
    key = svc.store.change_signature()
    hit = svc.runtime.supersession
    if hit is not None and hit[0] == key:
        return hit[1], hit[2]
    succ = _read_edges(svc)
    loops = _loops(succ)
    svc.runtime.supersession = (key, succ, loops)
    return succ, loops


def _edges(svc: "MemoryService") -> dict[str, set[str]]:
    """old path -> the paths said to supersede it (read only: shared until the index changes)."""
    return _graph(svc)[0]


def _read_edges(svc: "MemoryService") -> dict[str, set[str]]:
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
    archive = svc.layout.archive + "/"
    while succ.get(cur):
        # where a hand-written fork names two successors, one still in use before an archived one
        nxt = min(succ[cur], key=lambda p: (p.startswith(archive), p))
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


def _reaches(succ: dict[str, set[str]], start: str, goal: str) -> bool:
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


def cycles(svc: "MemoryService") -> list[list[str]]:
    """Every supersession cycle, each once (its paths sorted), for status."""
    return _graph(svc)[1]


def not_current(svc: "MemoryService") -> set[str]:
    """Memories that are not the current answer: marked superseded in their own frontmatter
    (`superseded_by` or `status: superseded`), except the members of a hand-written loop,
    which are all read as current."""
    marked = queries.superseded_paths(svc.store)
    if not marked:
        return marked
    return marked - {p for group in cycles(svc) for p in group}


def current_despite_marks(svc: "MemoryService") -> list[int]:
    """Rowids of loop members that are marked superseded: the SQL filter lets them through."""
    loops = cycles(svc) if queries.any_superseded(svc.store) else []
    if not loops:
        return []
    members = sorted(queries.superseded_paths(svc.store) & {p for group in loops for p in group})
    return sorted(queries.rowids_of(svc.store, members).values())


def successors_map(svc: "MemoryService") -> dict[str, set[str]]:
    return _edges(svc)
