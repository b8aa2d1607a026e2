"""The importer core: every item of a source passes the intake gate, exact duplicates
reinforce, known (source, source_id) pairs are skipped, and the new notes are written in
one batch through the write path (one index sync).

A format module only parses: it returns Items or raises BadSource listing every bad line
or file, so a malformed input writes nothing at all.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from ..errors import InvalidInput, MnemovaultError
from ..faults import writing
from ..index import queries
from ..limits import check_strength, check_tags, check_title, quote
from ..note import normalized_hash
from ..ops.names import clean_tags, create_under_free_name, slug_from
from ..ops.save import check_intake, render_note, taken_names
from ..ops.touch import touch
from ..edit import patch_bytes
from ..scoring import review_priority, score_at
from ..secret_gate import check_fields
from ..writer import create_exclusive, flush_batch

if TYPE_CHECKING:
    from ..service import MemoryService

Progress = Callable[[int, int], None]


class BadSource(InvalidInput):
    """The input cannot be read as this format; `problems` lists each bad line or file."""

    def __init__(self, problems: list[str]):
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
    raw: bytes | None = None  # a whole note to write as is (our own export), else rendered
    kind: str | None = None  # "stm" | "ltm" | "archive": where a raw note goes
    folder: str | None = None  # and its old folder, kept when it is inside that kind's folder
    name: str | None = None  # its preferred file stem


@dataclass
class Plan:
    create: list[Item] = field(default_factory=list)
    reinforce: list[tuple[Item, str]] = field(default_factory=list)  # item, twin path ("" = an earlier item)
    skip: list[tuple[Item, str]] = field(default_factory=list)  # already imported: item, its note
    refuse: list[tuple[Item, str]] = field(default_factory=list)  # item, why


def _gate(item: Item) -> None:
    item.text = check_intake(item.text)
    check_fields({"title": item.title, "tags": item.tags, "extra": item.extra, "source_id": item.source_id})
    item.title = check_title(item.title)
    item.tags = clean_tags(check_tags(item.tags))
    item.strength = check_strength(item.strength)
    if not isinstance(item.use_count, int) or isinstance(item.use_count, bool) or item.use_count < 0:
        raise InvalidInput(f"use_count must be a whole number >= 0, got {quote(item.use_count)}")


def plan(svc: "MemoryService", source: str, items: list[Item], tag: str | None = None) -> Plan:
    """What an import would do, without writing anything."""
    out = Plan()
    known = queries.source_ids(svc.store, source)
    twins = queries.memory_body_hashes(svc.store)
    mine = set(known.values())
    # our own export carries our ids: one already in the vault is that note
    present = {r["id"]: r["path"] for r in queries.rows_with_ids(svc.store, [i.source_id for i in items if i.raw is not None])}
    known.update(present)
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
        twin = twins.get(h)
        if twin is not None and (twin in mine or item.raw is not None):
            # its twin came from this source (folded in an earlier run), or our own export's
            # note is there already
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
    if dup.last_used and (into.last_used is None or dup.last_used > into.last_used):
        into.last_used = dup.last_used


def run(svc: "MemoryService", source: str, items: list[Item], dry_run: bool = False, tag: str | None = None,
        progress: Progress | None = None) -> dict[str, Any]:
    """Import `items` (the caller holds the write operation). Returns the counts and the lists."""
    p = plan(svc, source, items, tag)
    created: list[str] = []
    if not dry_run:
        created = _write(svc, source, p.create, progress)
        for item, twin in list(p.reinforce):
            if twin:
                try:
                    _reinforce(svc, twin, source, item.source_id)
                except MnemovaultError as exc:  # the twin cannot be written now (a problem, a conflict)
                    p.reinforce.remove((item, twin))
                    p.refuse.append((item, f"its twin {twin} could not be reinforced: {exc}"))
    return {
        "source": source, "dry_run": dry_run,
        "created": len(p.create), "reinforced": len(p.reinforce), "skipped": len(p.skip), "refused": len(p.refuse),
        "paths": created,
        "would_create": [{"where": i.where, "id": i.source_id, "title": i.title or slug_from(i.text)} for i in p.create]
        if dry_run else [],
        "reinforcements": [{"where": i.where, "id": i.source_id, "twin": t or "an earlier item"} for i, t in p.reinforce],
        "refusals": [{"where": i.where, "id": i.source_id, "cause": why} for i, why in p.refuse],
    }


def _reinforce(svc: "MemoryService", path: str, source: str, source_id: str) -> None:
    """One more use of the twin; a twin of no source records this one, so a re-run skips it."""
    touch(svc, path)
    row = svc.store.note(path)
    if row is not None and row["source"] is None:
        svc.writes.update(path, lambda data: patch_bytes(data, {"source": source, "source_id": source_id}))


def fields_for(svc: "MemoryService", source: str, item: Item, now: datetime) -> dict[str, Any]:
    created = item.created or now
    last_used = item.last_used or created
    prec = svc.settings.score_precision
    value = score_at(svc.params, item.use_count, last_used, item.strength, now)
    return {
        "id": str(uuid.uuid4()), "tags": item.tags, "created": created, "last_used": last_used,
        "use_count": item.use_count, "strength": float(item.strength), "status": "active",
        "decay_score": round(value, prec), "review_priority": round(review_priority(svc.params, value), prec),
        **item.extra, "source": source, "source_id": item.source_id,
    }


def raw_folder(svc: "MemoryService", item: Item) -> str:
    """Our own export's note goes back to its old folder when that lies in its kind's folder."""
    base = {"ltm": svc.layout.ltm, "archive": svc.layout.archive}.get(item.kind or "", svc.layout.stm)
    old = item.folder or ""
    parts = old.split("/")
    if (parts[0] == base and all(p and p not in (".", "..") and not p.startswith(".") for p in parts)
            and "\\" not in old):
        return old
    return base


def _write(svc: "MemoryService", source: str, items: list[Item], progress: Progress | None) -> list[str]:
    if not items:
        return []
    now = svc.now()
    taken = taken_names(svc)
    paths: list[str] = []
    with writing(f"{svc.layout.stm}/"):
        svc.layout.abs(svc.layout.stm).mkdir(parents=True, exist_ok=True)
    try:
        _write_each(svc, source, items, now, taken, paths, progress)
    finally:
        # one flush to disk for the batch (an fsync per note made 10,000 notes take 100 s)
        flush_batch({svc.layout.abs(p).parent for p in paths})
        svc.writes.synced(paths)  # one index sync for the whole import (also what a fault left)
    return paths


def _write_each(svc: "MemoryService", source: str, items: list[Item], now: datetime, taken: set[str],
                paths: list[str], progress: Progress | None) -> None:
    for n, item in enumerate(items, 1):
        if item.raw is not None:
            folder = raw_folder(svc, item)
            with writing(f"{folder}/"):
                svc.layout.abs(folder).mkdir(parents=True, exist_ok=True)
            data, stem = item.raw, item.name or slug_from(item.title or item.text)
        else:
            folder = svc.layout.stm
            data = render_note(fields_for(svc, source, item, now), item.text).encode("utf-8")
            stem = slug_from(item.title or item.text)
        def create(rel: str, data: bytes = data) -> None:
            with writing(rel):
                create_exclusive(svc.layout.abs(rel), data, durable=False)

        paths.append(create_under_free_name(create, folder, stem, taken))
        if progress is not None and (n % 200 == 0 or n == len(items)):
            progress(n, len(items))
