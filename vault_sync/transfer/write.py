"""Writing an import's new notes: folder and file name of each decided first (so a relation
can link to the note its target becomes), then every note created through the write path's
batch (engine.writes.creating: no per-note fsync, one flush to disk, ONE index sync).

Relations between imported memories become wikilinks in frontmatter, the way `relate`
writes them: `related: ["[[Other memory]]"]`, or a list named by the relation's type
(`causes: [...]`) when that type can be a key. A relation whose target is not in the source
(or was refused) stays as text in `relations` and is reported in `unlinked`. A `supersedes`
or `superseded_by` relation is a supersession: written after the notes exist, the way
`supersede` writes it (both sides, the old one `status: superseded`; a loop is refused and
reported in `unlinked`), so an imported old fact is never a current answer.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import lookups
from ..ageing import Facts, age
from ..edit import patch_bytes
from ..engine import Engine
from ..errors import InvalidInput, NoteProblem
from ..limits import bad_char
from ..names import _ILLEGAL, MAX_NAME_BYTES, create_under_free_name, slug_from, unique_stem
from ..note import parse_note, stem_of
from ..ops.ltm_index import add_many_to_index_note, wikilink_safe
from ..ops.relate import relation_key
from ..ops.save import render_note, taken_names
from ..ops.touch import touch
from .core import IMPORTED_IDS, Item, Plan, Progress, pair

if TYPE_CHECKING:
    from ..write_path import NewNotes

ARCHIVE_REASON = "archived in the source before the import"


@dataclass
class Links:
    """Per created item (by source_id): (frontmatter key, target source_id or an existing
    note's path); what stays text; and the report."""

    to_items: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    to_notes: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    as_text: dict[str, list[str]] = field(default_factory=dict)
    linked: int = 0
    unlinked: list[dict[str, str]] = field(default_factory=list)
    # (old, new, the item that named it): each end an item's source_id or an existing note's path
    supersede: list[tuple[str, str, Item]] = field(default_factory=list)


SUPERSESSION = ("supersedes", "superseded_by")


def _supersession(rel_type: str) -> str | None:
    key = rel_type.strip().lower().replace("-", "_").replace(" ", "_")
    return key if key in SUPERSESSION else None


def _key(rel_type: str, item: Item) -> str:
    try:
        key = relation_key(rel_type)
    except InvalidInput:
        return "related"  # a type that cannot be a key (a reserved name, odd characters)
    return "related" if key in item.extra else key


def link_plan(p: Plan) -> Links:
    out = Links()
    created = {i.source_id for i in p.create}
    existing = {i.source_id: path for i, path in [*p.skip, *p.reinforce, *p.replaced] if path}
    refused = {i.source_id for i, _ in p.refuse}
    for item in p.create:
        for rel_type, to in item.relations:
            key = _key(rel_type, item)
            sup = _supersession(rel_type)
            if sup and to != item.source_id and (to in created or to in existing):
                ends = (to, item.source_id) if sup == "supersedes" else (item.source_id, to)
                out.supersede.append((*ends, item))
                out.linked += 1
                continue
            if to == item.source_id:
                cause = "a relation to itself"
            elif to in created:
                out.to_items.setdefault(item.source_id, []).append((key, to))
                out.linked += 1
                continue
            elif to in existing and wikilink_safe(existing[to]):
                out.to_notes.setdefault(item.source_id, []).append((key, existing[to]))
                out.linked += 1
                continue
            else:
                cause = "its target was refused" if to in refused else "its target is not in the source"
            out.as_text.setdefault(item.source_id, []).append(f"{rel_type} {to}")
            out.unlinked.append({"where": item.where, "id": item.source_id, "type": rel_type, "to": to, "cause": cause})
    for item, twin in p.reinforce:
        for rel_type, to in item.relations if twin else ():
            out.unlinked.append(
                {
                    "where": item.where,
                    "id": item.source_id,
                    "type": rel_type,
                    "to": to,
                    "cause": f"the memory repeats {twin}, which was reinforced instead",
                }
            )
    return out


def write_supersessions(engine: Engine, links: Links, created: dict[str, str], existing: dict[str, str]) -> None:
    """The supersession relations, once every new note exists (`created`/`existing`: source_id -> path)."""
    from ..errors import MnemovaultError
    from ..ops.supersede import mark

    for old, new, item in links.supersede:
        ends = [created.get(x) or existing.get(x) for x in (old, new)]
        try:
            if ends[0] is None or ends[1] is None:
                raise InvalidInput("its target was not written")
            mark(engine, lookups.resolve(engine, ends[0]), lookups.resolve(engine, ends[1]))
        except MnemovaultError as exc:
            links.linked -= 1
            links.unlinked.append(
                {
                    "where": item.where,
                    "id": item.source_id,
                    "type": "supersedes" if new == item.source_id else "superseded_by",
                    "to": old if new == item.source_id else new,
                    "cause": str(exc),
                }
            )


def fields_for(engine: Engine, source: str, item: Item, now: datetime) -> dict[str, Any]:
    created = item.created or now
    last_used = item.last_used or created
    ageing = age(engine.params, Facts(item.use_count, item.strength, last_used), now)
    out: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "tags": item.tags,
        "created": created,
        "last_used": last_used,
        "use_count": item.use_count,
        "strength": float(item.strength),
        "status": item.state,
        **ageing.scores(engine.settings.score_precision),  # its due dates: the first sweep's
    }
    # the same keys promote and archive write
    if item.state == "promoted":
        out["promoted_at"] = item.state_at or now
    elif item.state == "archived":
        out.update(archived_at=item.state_at or now, archive_reason=ARCHIVE_REASON)
    return {**out, **item.extra, "source": source, "source_id": item.source_id}


def plain_name(part: str) -> bool:
    """A file or folder name from a source is used only when it is a plain one: no separator,
    no `.`/`..` or hidden name, no character unsafe in a file name or a [[link]], not too long."""
    return (
        bool(part)
        and part == part.strip(" .")
        and not part.startswith(".")
        and _ILLEGAL.search(part) is None
        and bad_char(part) is None
        and len(part.encode("utf-8", "surrogatepass")) <= MAX_NAME_BYTES
    )


def raw_folder(engine: Engine, item: Item) -> str:
    """Our own export's note goes back to its old folder when that lies in its kind's folder."""
    base = {"ltm": engine.layout.ltm, "archive": engine.layout.archive}.get(item.kind or "", engine.layout.stm)
    old = item.folder or ""
    parts = old.split("/")
    if parts[0] == base and all(plain_name(p) for p in parts):
        return old
    return base


def _place(engine: Engine, item: Item) -> tuple[str, str]:
    """(folder, preferred stem) of an item's new note; never a path taken from the source
    as it is (only a plain name inside the kind's folder, for our own export)."""
    if item.raw is not None:
        name = item.name if item.name and plain_name(item.name) else slug_from(item.title or item.text)
        return raw_folder(engine, item), name
    folder = {"promoted": engine.layout.ltm, "archived": engine.layout.archive}.get(item.state, engine.layout.stm)
    return folder, slug_from(item.title or item.text)


def write_batch(engine: Engine, source: str, items: list[Item], links: Links, progress: Progress | None) -> list[str]:
    if not items:
        return []
    now = engine.now()
    taken = taken_names(engine)
    # names first: `taken` holds every name in the vault, so [[name]] resolves to that note
    places = []
    for item in items:
        folder, stem = _place(engine, item)
        name = unique_stem(stem, taken)
        taken.add(name.lower())
        places.append((item, folder, name))
    name_of = {item.source_id: name for item, _, name in places}
    paths: list[str] = []
    renamed: dict[str, str] = {}  # planned name -> the name used (it appeared on disk meanwhile)
    # one flush and one index sync for the whole import, also of what a fault left
    with engine.writes.creating() as batch:
        for n, (item, folder, name) in enumerate(places, 1):
            data = item.raw if item.raw is not None else _render(engine, source, item, now, links, name_of)
            rel = _create(batch, folder, name, data, taken)
            if stem_of(rel) != name:
                renamed[name] = stem_of(rel)
            paths.append(rel)
            if progress is not None and (n % 200 == 0 or n == len(places)):
                progress(n, len(places))
    if renamed:
        _relink(engine, [rel for (item, _, _), rel in zip(places, paths) if item.source_id in links.to_items], renamed)
    # long-term memories are listed in the LTM index note, as a promotion lists them
    add_many_to_index_note(
        engine,
        [
            (rel, item.state_at or now)
            for (item, _, _), rel in zip(places, paths)
            if item.raw is None and item.state == "promoted"
        ],
    )
    return paths


def _render(engine: Engine, source: str, item: Item, now: datetime, links: Links, name_of: dict[str, str]) -> bytes:
    fields = fields_for(engine, source, item, now)
    targets = [(key, name_of[to]) for key, to in links.to_items.get(item.source_id, [])]
    targets += [(key, path[:-3]) for key, path in links.to_notes.get(item.source_id, [])]
    for key, name in targets:
        value = f"[[{name}]]"
        have = fields.setdefault(key, [])
        if value not in have:
            have.append(value)
    if item.source_id in links.as_text:
        fields["relations"] = links.as_text[item.source_id]
    return render_note(fields, item.text).encode("utf-8")


def _create(batch: "NewNotes", folder: str, name: str, data: bytes, taken: set[str]) -> str:
    def create(rel: str) -> None:
        batch.create(rel, data)

    try:
        create(f"{folder}/{name}.md")
        return f"{folder}/{name}.md"
    except FileExistsError:  # the name appeared on disk meanwhile: the next free one
        return create_under_free_name(create, folder, name, taken)


def _relink(engine: Engine, paths: list[str], renamed: dict[str, str]) -> None:
    """Links written to a planned name that was taken meanwhile now name the note's real name."""
    old = {f"[[{a}]]": f"[[{b}]]" for a, b in renamed.items()}
    for rel in paths:

        def transform(current: bytes, rel: str = rel) -> bytes | None:
            fm = parse_note(rel, current).frontmatter
            changes = {
                k: [old.get(x, x) for x in v]
                for k, v in fm.items()
                if isinstance(v, list) and any(isinstance(x, str) and x in old for x in v)
            }
            return patch_bytes(current, changes) if changes else None

        engine.writes.update(rel, transform)


def reinforce(engine: Engine, path: str, source: str, source_id: str) -> None:
    """One more use of the twin, and the pair recorded on it so a re-run skips the item: as
    its `source`/`source_id` when it has none, else in its `imported_ids` list."""
    touch(engine, path)
    row = engine.store.note(path)
    if row is not None and row["source"] is None:
        engine.writes.update(path, lambda data: patch_bytes(data, {"source": source, "source_id": source_id}))
        return

    def add_pair(current: bytes) -> bytes | None:
        have = parse_note(path, current).frontmatter.get(IMPORTED_IDS)
        if have is not None and not isinstance(have, list):
            raise NoteProblem(f"{path}: `{IMPORTED_IDS}` is not a list; not changing it")
        items = list(have or [])
        return (
            None
            if pair(source, source_id) in items
            else patch_bytes(current, {IMPORTED_IDS: [*items, pair(source, source_id)]})
        )

    engine.writes.update(path, add_pair)
