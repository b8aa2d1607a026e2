"""CortexGraph / Mnemex: its JSONL store. A memory record has `id`, `content`, `tags`,
`created_at` and `last_used` (unix seconds), `use_count`, `strength`, `status`; a relation
record has `from_memory_id`, `to_memory_id` and `relation_type`. PATH is a .jsonl file or
the store's folder (every .jsonl in it).

Its `status` decides where a memory goes: `active` to STM, `promoted` (its long-term
memory) to LTM with `status: promoted`, `archived` (or `forgotten`) to the archive with the
archive's keys; a `deleted` one is left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..limits import quote
from .core import BadSource, Item
from .readers import json_lines, number, source_files, text_list, when, whole

SOURCE = "cortexgraph"
STATE_OF = {"active": "active", "": "active", "promoted": "promoted", "ltm": "promoted",
            "archived": "archived", "forgotten": "archived"}


def _files(path: Path, problems: list[str]) -> list[Path]:
    return source_files(path, "*.jsonl", problems, recursive=False)


def _memory(obj: dict[str, Any], where: str) -> Item:
    mid, content = obj.get("id"), obj.get("content")
    if not isinstance(mid, (str, int)) or isinstance(mid, bool) or not str(mid).strip():
        raise ValueError("no usable `id`")
    if not isinstance(content, str):
        raise ValueError("no `content` text")
    created = when(obj.get("created_at"), "created_at")
    status = obj.get("status") or ""
    if not isinstance(status, str) or status.strip().lower() not in STATE_OF:
        raise ValueError(f"status {quote(status)} is not one of active, promoted, archived, forgotten, deleted")
    state = STATE_OF[status.strip().lower()]
    at = {"promoted": "promoted_at", "archived": "archived_at"}.get(state)
    return Item(
        where=where, source_id=str(mid).strip(), text=content, tags=text_list(obj.get("tags"), "tags"),
        created=created, last_used=when(obj.get("last_used"), "last_used") or created,
        use_count=whole(obj.get("use_count"), "use_count", 1), strength=number(obj.get("strength"), "strength", 1.0),
        state=state, state_at=when(obj.get(at), at) if at else None,
    )


def parse(path: Path) -> list[Item]:
    items: list[Item] = []
    relations: dict[str, list[tuple[str, str]]] = {}
    problems: list[str] = []
    for f in _files(path, problems):
        label = f.name if path.is_dir() else "line"
        for n, obj in json_lines(f):
            where = f"{label} line {n}" if path.is_dir() else f"line {n}"
            if isinstance(obj, str):
                problems.append(f"{where}: {obj}")
                continue
            try:
                if "from_memory_id" in obj or "to_memory_id" in obj:
                    a, b = obj.get("from_memory_id"), obj.get("to_memory_id")
                    if not isinstance(a, str) or not isinstance(b, str):
                        raise ValueError("a relation needs `from_memory_id` and `to_memory_id` text")
                    kind = obj.get("relation_type") or "related"
                    if not isinstance(kind, str):
                        raise ValueError("`relation_type` is not text")
                    relations.setdefault(a.strip(), []).append((kind, b.strip()))
                    continue
                if isinstance(obj.get("status"), str) and obj["status"].strip().lower() == "deleted":
                    continue
                items.append(_memory(obj, where))
            except ValueError as exc:
                problems.append(f"{where}: {exc}")
    seen: dict[str, str] = {}
    for item in items:
        if item.source_id in seen:
            problems.append(f"{item.where}: id {quote(item.source_id)} already used at {seen[item.source_id]}")
        seen.setdefault(item.source_id, item.where)
    if problems:
        problems.sort(key=_line_order)
        raise BadSource(problems)
    for item in items:
        item.relations = relations.get(item.source_id, [])  # links or text: decided on import (write.py)
    return items


def _line_order(problem: str) -> tuple[str, int]:
    where = problem.split(":", 1)[0]
    head, _, n = where.rpartition(" ")
    return (head, int(n)) if n.isdigit() else (where, 0)
