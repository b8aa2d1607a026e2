"""CortexGraph / Mnemex: its JSONL store, read the way CortexGraph loads it. PATH is a .jsonl
file or the store's folder (every .jsonl in it: `memories.jsonl`, `relations.jsonl`).

Each file is an append-only log: every save or update appends the whole record again (the
last record of an id wins), a delete appends `{"id": ..., "_deleted": true}`, and CortexGraph's
`compact` rewrites the file to one line per id. So each file is replayed in order: a record
replaces the earlier one of its id, a tombstone removes it (a later record brings it back).
A compacted store reads the same. What the log held is reported (`Log`).

A memory record has `id`, `content`, `meta.tags` (older stores: `tags`), `created_at` and
`last_used` (unix seconds), `use_count` (touches after the save: n there is n + 1 uses here,
`uses_here`), `strength`, `status`; a relation record has `id`,
`from_memory_id`, `to_memory_id` and `relation_type`. Every line must be a well-formed record,
even one a later line replaces: a malformed line is reported and nothing is imported.

Its `status` decides where a memory goes: `active` to STM, `promoted` (its long-term
memory) to LTM with `status: promoted`, `archived` (or `forgotten`) to the archive with the
archive's keys; a `deleted` one is left out, like a tombstoned one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..limits import MAX_RELATION_CHARS, MAX_USE_COUNT, quote
from .core import BadSource, Item, Source
from .readers import bounded_id, bounded_name, json_lines, number, source_files, text_list, when, whole

SOURCE = "cortexgraph"
STATE_OF = {
    "active": "active",
    "": "active",
    "promoted": "promoted",
    "ltm": "promoted",
    "archived": "archived",
    "forgotten": "archived",
    "deleted": "deleted",
}


@dataclass
class Count:
    """One kind of record in the log: lines, tombstones, distinct ids, ids alive after replay."""

    records: int = 0
    tombstones: int = 0
    ids: set[str] = field(default_factory=set)
    kept: int = 0

    def report(self) -> dict[str, int]:
        return {"records": self.records, "tombstones": self.tombstones, "ids": len(self.ids), "kept": self.kept}


@dataclass
class Log:
    """What the store's log held, and what replaying it left."""

    memories: Count = field(default_factory=Count)
    relations: Count = field(default_factory=Count)
    orphaned: int = 0  # live relations from a memory the log deleted: nothing to attach them to

    def report(self) -> dict[str, Any]:
        return {"memories": self.memories.report(), "relations": {**self.relations.report(), "orphaned": self.orphaned}}


@dataclass
class Relation:
    where: str
    source: str
    target: str
    kind: str


def _files(path: Path, problems: list[str]) -> list[Path]:
    return source_files(path, "*.jsonl", problems, recursive=False)


def uses_here(cortexgraph_uses: int) -> int:
    """CortexGraph's `use_count` counts touches after the save (a new memory has 0) and scores
    `(use_count + 1) ** beta`; here the save is the first use and the score is `use_count ** beta`.
    So n uses there are n + 1 here: the same score, and no memory arrives with score 0."""
    return cortexgraph_uses + 1


def _memory(obj: dict[str, Any], where: str) -> Item:
    mid, content = bounded_id(obj.get("id"), "id"), obj.get("content")
    if not isinstance(content, str):
        raise ValueError("no `content` text")
    created = when(obj.get("created_at"), "created_at")
    status = obj.get("status") or ""
    if not isinstance(status, str) or status.strip().lower() not in STATE_OF:
        raise ValueError(f"status {quote(status)} is not one of active, promoted, archived, forgotten, deleted")
    state = STATE_OF[status.strip().lower()]
    at = {"promoted": "promoted_at", "archived": "archived_at"}.get(state)
    meta = obj.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise ValueError("`meta` is not an object")
    tags = (meta or {}).get("tags") if meta and meta.get("tags") is not None else obj.get("tags")
    return Item(
        where=where,
        source_id=mid,
        text=content,
        tags=text_list(tags, "tags"),
        created=created,
        last_used=when(obj.get("last_used"), "last_used") or created,
        use_count=uses_here(whole(obj.get("use_count"), "use_count", 0, MAX_USE_COUNT - 1)),
        strength=number(obj.get("strength"), "strength", 1.0),
        state=state,
        state_at=when(obj.get(at), at) if at else None,
    )


def _relation(obj: dict[str, Any], where: str) -> Relation:
    a, b = obj.get("from_memory_id"), obj.get("to_memory_id")
    if not isinstance(a, (str, int)) or not isinstance(b, (str, int)):
        raise ValueError("a relation needs `from_memory_id` and `to_memory_id` text")
    kind = obj.get("relation_type") or "related"
    if not isinstance(kind, str):
        raise ValueError("`relation_type` is not text")
    return Relation(
        where,
        bounded_id(a, "from_memory_id"),
        bounded_id(b, "to_memory_id"),
        bounded_name(kind, "relation_type", MAX_RELATION_CHARS),
    )


class Replay:
    """The store's files replayed one by one; problems gathered, never raised midway."""

    def __init__(self) -> None:
        self.log = Log()
        self.problems: list[str] = []
        self.memories: dict[str, tuple[str, Item | None]] = {}  # id -> (file, item; None = deleted)
        self.relations: dict[str, Relation | None] = {}  # "<file>:<id>" -> relation (None = deleted)

    def file(self, f: Path, label: str) -> None:
        live: dict[str, str] = {}  # this file's ids -> "memory" | "relation": what a tombstone removes
        unknown: list[str] = []  # tombstoned ids this file never held a record of
        for n, obj in json_lines(f):
            where = f"{label} line {n}" if label else f"line {n}"
            if isinstance(obj, str):
                self.problems.append(f"{where}: {obj}")
                continue
            try:
                self._line(f.name, where, obj, live, unknown)
            except ValueError as exc:
                self.problems.append(f"{where}: {exc}")
        kind = self.log.relations if "relation" in live.values() else self.log.memories
        kind.tombstones += len(unknown)
        kind.ids.update(unknown)

    def _line(self, name: str, where: str, obj: dict[str, Any], live: dict[str, str], unknown: list[str]) -> None:
        if obj.get("_deleted"):  # CortexGraph's own test: any true value
            rid = bounded_id(obj.get("id"), "id")
            kind = live.get(rid)
            if kind == "relation":
                self.log.relations.tombstones += 1
                self.relations[f"{name}:{rid}"] = None
            elif kind == "memory":
                self.log.memories.tombstones += 1
                self.memories[rid] = (name, None)
            else:
                unknown.append(rid)
            return
        if "from_memory_id" in obj or "to_memory_id" in obj:
            rel = _relation(obj, where)
            rid = bounded_id(obj["id"], "id") if obj.get("id") is not None else where  # older stores: no id
            self.log.relations.records += 1
            self.log.relations.ids.add(rid)
            self.relations[f"{name}:{rid}"] = rel
            live[rid] = "relation"
            return
        item = _memory(obj, where)
        self.log.memories.records += 1
        self.log.memories.ids.add(item.source_id)
        other = self.memories.get(item.source_id)
        if other is not None and other[0] != name:
            raise ValueError(f"id {quote(item.source_id)} is also in {other[0]}; import one store at a time")
        self.memories[item.source_id] = (name, None if item.state == "deleted" else item)
        live[item.source_id] = "memory"

    def items(self) -> list[Item]:
        items = [item for _, item in self.memories.values() if item is not None]
        by_id = {item.source_id: item for item in items}
        relations = [r for r in self.relations.values() if r is not None]
        self.log.memories.kept = len(items)
        self.log.relations.kept = len(relations)
        for rel in relations:
            owner = by_id.get(rel.source)
            if owner is None:
                self.log.orphaned += 1
            else:
                owner.relations.append((rel.kind, rel.target))  # a link or text: decided on import (write.py)
        return items


def parse(path: Path) -> Source:
    replay = Replay()
    for f in _files(path, replay.problems):
        replay.file(f, f.name if path.is_dir() else "")
    if replay.problems:
        replay.problems.sort(key=_line_order)
        raise BadSource(replay.problems)
    items = replay.items()
    return Source(items, {"log": replay.log.report()})


def _line_order(problem: str) -> tuple[str, int]:
    where = problem.split(":", 1)[0]
    head, _, n = where.rpartition(" ")
    return (head, int(n)) if n.isdigit() else (where, 0)
