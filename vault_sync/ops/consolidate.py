"""Consolidate several STM memories into one note; the originals are archived, linked to it.

Preview by default. The new note gets: the union of the tags (in order of first use), the
sum of the use counts, the earliest `created`, the latest `last_used`, and the strength of
the strongest original plus 0.1 for every other one, capped at 2.0 (consolidation is a
reinforcement, and each reinforcement adds 0.1 to the strength, capped at 2.0). The text
is each original's body, oldest first, each followed by a link to the original; the
originals move to the archive with `merged_into: "[[new note]]"`, so `restore` undoes it.

A superseded memory is never merged: its text is a fact that no longer holds. It may be
named with what replaced it (consolidating a chain): the new note then holds the current
facts only, and every supersession link that pointed at a merged original moves to the new
note (`supersedes` on it, `superseded_by` on the old fact), so the chain ends there.
"""

from __future__ import annotations

from typing import Any

from .. import lookups
from ..dates import format_datetime, parse_datetime
from ..editor_hold import held_matcher
from ..engine import Engine
from ..errors import InvalidInput, NoteProblem, WrongState
from ..index import queries
from ..limits import cap_strength, check_refs
from ..lookups import newest, not_current, successors_map
from ..note import stem_of
from ..projects import same_project
from ..search.cluster import cluster
from ..secret_gate import check_fields
from .lifecycle import archive_one, check_not_pinned
from .save import create_memory
from .supersede import link_name, mark

BONUS_PER_EXTRA = 0.1


def _members(engine: Engine, ids: list[str] | str) -> list[Any]:
    refs = [ids] if isinstance(ids, str) else check_refs(ids or [], "ids")
    refs = [r.strip() for r in refs if isinstance(r, str) and r.strip()]
    if len(refs) == 1 and refs[0].startswith("c-"):
        found = [c for c in cluster(engine) if c["id"] == refs[0]]
        if not found:
            raise InvalidInput(f"no cluster {refs[0]!r} (clusters change as memories change: run cluster again)")
        refs = [m["path"] for m in found[0]["members"]]
    rows, seen = [], set()
    for ref in refs:
        row = lookups.resolve(engine, ref, kinds=("stm",))
        if row["kind"] != "stm":
            raise WrongState(f"{row['path']} is not a short-term memory; only STM memories are consolidated")
        if not row["writable"]:  # it could not be archived afterwards: refuse before writing anything
            raise NoteProblem(f"{row['path']} has invalid frontmatter; fix it before consolidating it")
        check_not_pinned(row, "merged away")  # its original is archived: refused before anything is written
        if row["path"] not in seen:
            seen.add(row["path"])
            rows.append(row)
    if len(rows) < 2:
        raise InvalidInput("consolidation needs at least two different STM memories (ids, paths, or one cluster id)")
    for row in rows[1:]:  # one project's memories (or shared ones) only: a merge never crosses projects
        if not same_project(row["project"], rows[0]["project"]):
            names = ", ".join(sorted({r["project"] or "shared" for r in rows}))
            raise InvalidInput(
                f"these memories belong to different projects ({names}); consolidation never merges across "
                "projects: move one by editing its `project` key first if they are one project's"
            )
    return rows


def _split(engine: Engine, rows: list[Any]) -> tuple[list[Any], list[Any]]:
    """(the current members, the superseded ones). A superseded member is only accepted when
    what replaced it is a member too; its text is not merged, its link moves to the new note."""
    superseded = not_current(engine)
    old = [r for r in rows if r["path"] in superseded]
    if not old:
        return rows, []
    current = [r for r in rows if r["path"] not in superseded]
    if not current:
        raise WrongState("every one of these memories is superseded; consolidate the ones that hold now")
    succ = successors_map(engine)
    paths = {r["path"] for r in rows}
    for row in old:
        if not succ.get(row["path"], set()) & paths:
            newer = (
                newest(engine, row["path"], succ) or ", ".join(sorted(succ.get(row["path"], ()))) or "a newer memory"
            )
            raise WrongState(
                f"{row['path']} is superseded by {newer}, which is not among these: a replaced fact is "
                "never merged; consolidate the memory that holds now"
            )
    return current, old


def _link(engine: Engine, path: str, folder: str) -> str:
    """A wikilink, written in a note of `folder`, that reaches `path`: the bare name, or the
    path where another note shares the name (moves then keep it pointing there)."""
    return f"[[{link_name(engine, path, f'{folder}/{stem_of(path)}.md')}]]"


def plan(
    engine: Engine, rows: list[Any], title: str | None = None, superseded: list[Any] | None = None
) -> dict[str, Any]:
    """What consolidating these memories would write (`superseded`: members whose link moves)."""
    far = "9999-12-31T23:59:59Z"
    rows = sorted(rows, key=lambda r: (r["created"] or far, r["path"]))
    tags: list[str] = []
    parts = []
    for row in rows:
        for tag in engine.store.tags_of(row["rowid"]):
            if tag not in tags:
                tags.append(tag)
        text = queries.body_of(engine.store, row["rowid"]).strip()
        # the bare name where it reaches this note from STM/, else its path: a shared name
        # must not send the provenance link elsewhere (the archive move rewrites it after)
        source = f"(from {_link(engine, row['path'], engine.layout.stm)})"
        parts.append(f"{text}\n{source}" if text else source)
    created = [d for d in (parse_datetime(r["created"]) for r in rows) if d is not None]
    used = [d for d in (parse_datetime(r["last_used"]) or parse_datetime(r["created"]) for r in rows) if d is not None]
    strengths = [r["strength"] if r["strength"] is not None else 1.0 for r in rows]
    strength = cap_strength(max(strengths) + BONUS_PER_EXTRA * (len(rows) - 1))
    return {
        "title": title or rows[0]["title"],
        "text": "\n\n".join(parts) + "\n",
        "tags": tags,
        "use_count": sum(max(1, r["use_count"] or 0) for r in rows),
        "strength": round(strength, 4),
        "created": min(created) if created else None,
        "last_used": max(used) if used else None,
        "sources": [{"id": r["id"], "path": r["path"], "title": r["title"]} for r in rows],
        "superseded": [{"id": r["id"], "path": r["path"], "title": r["title"]} for r in superseded or []],
    }


def _move_chain_links(engine: Engine, merged: list[str], new_path: str) -> list[dict[str, Any]]:
    """Every memory superseded by a merged original is superseded by the new note instead,
    before the originals move (the chain must not end in the archive)."""
    succ = successors_map(engine)
    merged_set = set(merged)
    earlier = sorted(p for p, after in succ.items() if after & merged_set and p not in merged_set)
    errors = []
    new_row = lookups.resolve(engine, new_path)
    for path in earlier:
        try:
            mark(engine, lookups.resolve(engine, path), new_row)
        except Exception as exc:  # keep going: report what is left
            errors.append({"path": path, "error": str(exc)})
    return errors


def _public(p: dict[str, Any]) -> dict[str, Any]:
    out = dict(p)
    for key in ("created", "last_used"):
        out[key] = format_datetime(out[key]) if out[key] is not None else None
    return out


def consolidate(
    engine: Engine, ids: list[str], apply: bool = False, title: str | None = None, leave_held: bool = False
) -> dict[str, Any]:
    """Preview (default) or write the consolidated note and archive the originals.

    `leave_held` (a job): the note open in the editor is left out, listed under `held`, and
    offered again by the next clustering once it is closed.
    Returns {"applied", "plan", "note" (the new note when applied), "archived": [Move], "errors", "held"}.
    """
    members = _members(engine, ids)
    held: list[str] = []
    if leave_held:
        is_held = held_matcher(engine.editor.held())
        held = [r["path"] for r in members if is_held(r["path"])]
        members = [r for r in members if not is_held(r["path"])]
        if held and len(members) < 2:
            raise WrongState(
                f"{held[0]} is open in the editor, and a consolidation job leaves it alone; "
                "run it again once the note is closed"
            )
    rows, old = _split(engine, members)
    p = plan(engine, rows, title, old)
    if not apply:
        return {"applied": False, "plan": _public(p), "note": None, "archived": [], "errors": [], "held": held}
    # the text and title come from notes a person may have written by hand: gate them
    # like any save, before anything is written
    check_fields({"consolidated text": p["text"], "consolidated title": p["title"], "consolidated tags": p["tags"]})
    note = create_memory(
        engine,
        p["text"],
        p["tags"],
        p["title"],
        p["strength"],
        p["use_count"],
        p["created"],
        p["last_used"],
        {"merged_from": [_link(engine, s["path"], engine.layout.stm) for s in p["sources"]]},
        project=members[0]["project"],  # every member's (checked by _members)
    )
    link = _link(engine, note["path"], engine.layout.archive)
    archived, errors = [], []
    errors += _move_chain_links(engine, [s["path"] for s in p["sources"]], note["path"])
    for source in p["sources"]:
        try:
            row = lookups.resolve(engine, source["path"])
            archived.append(archive_one(engine, row, f"consolidated into {link}", {"merged_into": link}).to_dict())
        except Exception as exc:  # keep going: the new note exists, report what is left
            errors.append({"path": source["path"], "error": str(exc)})
    engine.writes.emit(
        "consolidated", {"path": note["path"], "id": note["id"], "sources": [s["path"] for s in p["sources"]]}
    )
    return {"applied": True, "plan": _public(p), "note": note, "archived": archived, "errors": errors, "held": held}
