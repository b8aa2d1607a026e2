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

from typing import Any

from .. import lookups
from ..edit import patch_bytes
from ..engine import Engine
from ..errors import InvalidInput, NoteProblem, SupersessionCycle
from ..index.resolver import build_resolver
from ..limits import check_refs
from ..links import WIKILINK, parse_wikilink
from ..lookups import reaches, successors_map
from ..note import parse_note, stem_of
from ..patch import REMOVE
from ..projects import check_across
from .moves import check_size

MEMORY_KINDS = ("stm", "ltm", "archive")


def link_name(engine: Engine, path: str, where: str) -> str:
    """How to write a link from `where` to `path` so that it resolves there (stem, else path)."""
    stem = stem_of(path)
    return stem if build_resolver(engine.store).resolve(stem, where) == path else path[:-3]


def mark(engine: Engine, old_row: Any, new_row: Any) -> dict[str, Any]:
    """Write both sides of one supersession (the caller holds the write lock)."""
    if old_row["path"] == new_row["path"]:
        raise InvalidInput("a memory cannot supersede itself")
    for row in (old_row, new_row):
        if row["kind"] not in MEMORY_KINDS:
            raise InvalidInput(f"{row['path']} is one of your notes; supersession is written on memories only")
        check_size(engine, row)
    old_path, new_path = old_row["path"], new_row["path"]
    succ = successors_map(engine)
    if reaches(succ, new_path, old_path):
        raise SupersessionCycle(
            f"{old_path} cannot be superseded by {new_path}: {new_path} is itself superseded by {old_path} "
            "(directly or through its chain), and a fact's history cannot loop back; supersede the newest one instead"
        )
    earlier = sorted(succ.get(old_path, set()) - {new_path})  # what superseded it before: their links move
    to_old = f"[[{link_name(engine, old_row['path'], new_row['path'])}]]"
    to_new = f"[[{link_name(engine, new_row['path'], old_row['path'])}]]"

    def on_new(current: bytes) -> bytes | None:
        note = parse_note(new_row["path"], current)
        if not note.writable:
            raise NoteProblem(f"{new_row['path']}: fix its frontmatter first")
        existing = note.frontmatter.get("supersedes")
        items = (
            list(existing)
            if isinstance(existing, list)
            else ([existing] if isinstance(existing, str) and existing.strip() else [])
        )
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

    engine.writes.update(new_row["path"], on_new)
    engine.writes.update(old_row["path"], on_old)
    for path in earlier:
        _drop_back_link(engine, path, old_path)
    engine.writes.emit("superseded", {"old": old_row["path"], "new": new_row["path"]})
    return {"old": old_row["path"], "new": new_row["path"]}


def _drop_back_link(engine: Engine, path: str, old: str) -> None:
    """Take `old` out of the `supersedes` list of a memory that no longer supersedes it (a
    person's own note is left as written)."""
    row = engine.store.note(path)
    if row is None or row["kind"] not in MEMORY_KINDS:
        return
    resolver = build_resolver(engine.store)

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

    engine.writes.update(path, transform)


def supersede(engine: Engine, old: str, by: str, across_projects: bool = False) -> dict[str, Any]:
    """Mark `old` as superseded by `by` (ids or paths); returns both notes' views. The two must
    be of one project (or both shared) unless `across_projects`."""
    old_row, new_row = lookups.resolve(engine, old), lookups.resolve(engine, by)
    check_across(new_row["project"], [old_row], across_projects)
    mark(engine, old_row, new_row)
    return {"superseded": lookups.note(engine, old_row["path"]), "by": lookups.note(engine, new_row["path"])}


def supersede_refs(engine: Engine, refs: list[str] | None) -> list[Any]:
    """The rows a save's `supersedes` names, resolved and checked before anything is written."""
    if not refs:
        return []
    rows = [lookups.resolve(engine, r) for r in check_refs(refs)]
    for row in rows:
        if row["kind"] not in MEMORY_KINDS:
            raise InvalidInput(f"{row['path']} is one of your notes; only memories can be superseded")
    return rows
