"""The importer core: every item of a source passes the intake gate, exact duplicates
reinforce, known (source, source_id) pairs are skipped, and the new notes are written in
one batch through the write path (one index sync; write.py).

A format module only parses: it returns Items or raises BadSource listing every bad line
or file, so a malformed input writes nothing at all.

Idempotence across sources: an item whose exact twin came from ANOTHER source (or is the
person's own memory that already records a source) reinforces that twin once, and the pair
is written on the twin as `imported_ids: ["<source>:<id>"]`. The vault holds the record (the
index stays a function of the vault); a re-run reads the twin's list and skips the item.

An item whose text is a superseded memory's (in STM, LTM or the archive) is not imported:
that fact was replaced in the vault, and an import must not bring it back as current. It is
reported under `replaced`, with the note that holds the old text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from ..engine import Engine
from ..errors import InvalidInput, MnemovaultError
from ..index import queries
from ..limits import (
    MAX_FIELD_CHARS,
    MAX_IMPORTED_CHARS,
    MAX_METADATA_CHARS,
    MAX_REF_CHARS,
    MAX_RELATION_CHARS,
    MAX_RELATIONS,
    MAX_USE_COUNT,
    check_name,
    check_strength,
    check_tags,
    check_title,
    quote,
)
from ..lookups import not_current
from ..names import MAX_NAME_BYTES, clean_tags
from ..note import normalized_hash, parse_note
from ..ops.save import check_intake
from ..secret_gate import check_fields, scan

Progress = Callable[[int, int], None]
IMPORTED_IDS = "imported_ids"  # on a twin that already had a source: the other pairs folded into it
STATES = ("active", "promoted", "archived")


def _without_secrets(problem: str) -> str:
    kinds = sorted({f.kind for f in scan(problem)})
    return f"[a problem quoting a secret ({', '.join(kinds)}) is not shown]" if kinds else problem


class BadSource(InvalidInput):
    """The input cannot be read as this format; `problems` lists each bad line or file."""

    def __init__(self, problems: list[str]):
        # a problem may quote the source (a line, a file name): one holding a secret is not shown
        problems = [_without_secrets(p) for p in problems]
        self.problems = problems
        shown = "; ".join(problems[:20]) + (f"; and {len(problems) - 20} more" if len(problems) > 20 else "")
        super().__init__(f"nothing was imported: {len(problems)} problem(s): {shown}")


@dataclass
class Item:
    where: str  # "line 4" or a file path: how the person finds it in the source
    source_id: str
    text: str
    title: str | None = None
    tags: list[str] = field(default_factory=list)
    created: datetime | None = None
    last_used: datetime | None = None
    use_count: int = 1
    strength: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)  # more frontmatter (the secret gate checks it)
    state: str = "active"  # "active" (STM) | "promoted" (LTM) | "archived" (the archive)
    state_at: datetime | None = None  # when it was promoted or archived there, if known
    relations: list[tuple[str, str]] = field(default_factory=list)  # (type, the other item's source_id)
    raw: bytes | None = None  # a whole note to write as is (our own export), else rendered
    kind: str | None = None  # "stm" | "ltm" | "archive": where a raw note goes
    folder: str | None = None  # and its old folder, kept when it is inside that kind's folder
    name: str | None = None  # its preferred file stem


@dataclass
class Source:
    """A parsed source: its items, and what its reader reports besides (added to the result)."""

    items: list[Item]
    report: dict[str, Any] = field(default_factory=dict)


METADATA_KEYS = ("source_metadata",)  # the free-form ones: MAX_METADATA_CHARS, not MAX_FIELD_CHARS


def _size(value: Any) -> int:
    return len(value) if isinstance(value, str) else len(json.dumps(value, default=str, ensure_ascii=False))


def over_bounds(item: Item) -> list[str]:
    """What of an item is past the import bounds (limits.py), each problem naming its record and
    field. Text, title, tags and ids are bounded by the gate (the item is refused, like a save)."""
    problems = []
    if len(item.relations) > MAX_RELATIONS:
        problems.append(f"{len(item.relations):,} relations from one memory (limit {MAX_RELATIONS})")
    if not isinstance(item.use_count, int) or item.use_count > MAX_USE_COUNT:
        problems.append(f"use_count {quote(item.use_count)} is over the limit ({MAX_USE_COUNT:,})")
    # our own export's note is written as it was (its frontmatter bounded as a whole: jsonl.py)
    for key, value in item.extra.items() if item.raw is None else ():
        most = MAX_METADATA_CHARS if key in METADATA_KEYS else MAX_FIELD_CHARS
        if _size(value) > most:
            problems.append(f"`{key}` is too large ({_size(value):,} characters, limit {most:,})")
    if not problems and item.raw is None:
        # together: a relation kept as a link takes a note name, as text its type and target
        total = (
            sum(_size(v) for v in item.extra.values())
            + len(item.title or "")
            + len(item.source_id)
            + sum(len(t) for t in item.tags)
            + sum(len(kind) + max(len(to), MAX_NAME_BYTES + 4) for kind, to in item.relations)
        )
        if total > MAX_IMPORTED_CHARS:
            problems.append(
                f"its fields take {total:,} characters of frontmatter together (limit {MAX_IMPORTED_CHARS:,})"
            )
    return [f"{item.where}: {p}" for p in problems]


@dataclass
class Plan:
    create: list[Item] = field(default_factory=list)
    reinforce: list[tuple[Item, str]] = field(default_factory=list)  # item, twin path ("" = an earlier item)
    skip: list[tuple[Item, str]] = field(default_factory=list)  # already imported: item, its note
    refuse: list[tuple[Item, str]] = field(default_factory=list)  # item, why
    replaced: list[tuple[Item, str]] = field(default_factory=list)  # item, the superseded note holding its text


def pair(source: str, source_id: str) -> str:
    return f"{source}:{source_id}"


def _gate(item: Item) -> None:
    item.text = check_intake(item.text)
    check_name("the original id", item.source_id, MAX_REF_CHARS)
    for rel_type, to in item.relations:
        check_name("a relation", f"{rel_type} {to}", MAX_REF_CHARS + MAX_RELATION_CHARS)
    check_fields(
        {
            "title": item.title,
            "tags": item.tags,
            "extra": item.extra,
            "source_id": item.source_id,
            "name": item.name,  # our own export's file name and folder name the new note too
            "folder": item.folder,
            "relations": [f"{t} {to}" for t, to in item.relations],
        }
    )
    item.title = check_title(item.title)
    item.tags = clean_tags(check_tags(item.tags))
    item.strength = check_strength(item.strength)
    if not isinstance(item.use_count, int) or isinstance(item.use_count, bool) or item.use_count < 0:
        raise InvalidInput(f"use_count must be a whole number >= 0, got {quote(item.use_count)}")
    if item.state not in STATES:
        raise InvalidInput(f"state must be one of {', '.join(STATES)}, got {quote(item.state)}")


def imported_ids(engine: Engine, path: str) -> set[str]:
    """The (source:id) pairs a note records as folded into it (its own pair aside)."""
    try:
        note = parse_note(path, engine.layout.abs(path).read_bytes())
    except OSError:
        return set()
    value = note.frontmatter.get(IMPORTED_IDS)
    return {str(v) for v in value if isinstance(v, (str, int))} if isinstance(value, list) else set()


def plan(engine: Engine, source: str, items: list[Item], tag: str | None = None) -> Plan:
    """What an import would do, without writing anything."""
    out = Plan()
    known = queries.source_ids(engine.store, source)
    twins = queries.memory_body_hashes(engine.store)
    replaced = queries.body_hashes_of(engine.store, sorted(not_current(engine)))
    mine = set(known.values())
    # our own export carries our ids: one already in the vault is that note
    present = {
        r["id"]: r["path"]
        for r in queries.rows_with_ids(engine.store, [i.source_id for i in items if i.raw is not None])
    }
    known.update(present)
    folded: dict[str, set[str]] = {}  # twin path -> the pairs it records (read once)
    first: dict[str, Item] = {}
    for item in items:
        if item.source_id in known:
            out.skip.append((item, known[item.source_id]))
            continue
        try:
            if tag:
                item.tags = [*item.tags, tag]
            _gate(item)
        except MnemovaultError as exc:
            out.refuse.append((item, str(exc)))
            continue
        h = normalized_hash(item.text)
        if h in replaced:  # an old fact the vault has replaced: never current again
            out.replaced.append((item, replaced[h]))
            continue
        twin = twins.get(h)
        if twin is not None and twin not in mine and item.raw is None and twin not in folded:
            folded[twin] = imported_ids(engine, twin)
        if twin is not None and (
            twin in mine
            or item.raw is not None
            or pair(source, item.source_id) in folded[twin]
            or item.state == "archived"
        ):
            # its twin came from this source (folded in an earlier run, or recorded on the twin),
            # our own export's note is there already, or a forgotten memory's text is alive
            out.skip.append((item, twin))
        elif twin is not None:
            out.reinforce.append((item, twin))
        elif h in first:
            out.reinforce.append((item, ""))  # the same text earlier in this source
            _fold(first[h], item)
        else:
            first[h] = item
            out.create.append(item)
    return out


def _fold(into: Item, dup: Item) -> None:
    """A repeat inside the source is one more use of the first copy (so a re-run stays a no-op)."""
    into.use_count += max(dup.use_count, 1)
    into.relations += [r for r in dup.relations if r not in into.relations]
    if dup.last_used and (into.last_used is None or dup.last_used > into.last_used):
        into.last_used = dup.last_used
