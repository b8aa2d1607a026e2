"""CortexGraph / Mnemex: its JSONL store. A memory record has `id`, `content`, `tags`,
`created_at` and `last_used` (unix seconds), `use_count`, `strength`, `status`; a relation
record has `from_memory_id`, `to_memory_id` and `relation_type`. PATH is a .jsonl file or
the store's folder (every .jsonl in it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..limits import quote
from .core import BadSource, Item
from .readers import json_lines, number, text_list, when, whole

SOURCE = "cortexgraph"


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(path.glob("*.jsonl"))
    if path.is_file():
        return [path]
    raise BadSource([f"{path}: no such file or folder"])


def _memory(obj: dict[str, Any], where: str) -> Item:
    mid, content = obj.get("id"), obj.get("content")
    if not isinstance(mid, (str, int)) or isinstance(mid, bool) or not str(mid).strip():
        raise ValueError("no usable `id`")
    if not isinstance(content, str):
        raise ValueError("no `content` text")
    created = when(obj.get("created_at"), "created_at")
    return Item(
        where=where, source_id=str(mid).strip(), text=content, tags=text_list(obj.get("tags"), "tags"),
        created=created, last_used=when(obj.get("last_used"), "last_used") or created,
        use_count=whole(obj.get("use_count"), "use_count", 1), strength=number(obj.get("strength"), "strength", 1.0),
    )


def parse(path: Path) -> list[Item]:
    items: list[Item] = []
    relations: dict[str, list[str]] = {}
    problems: list[str] = []
    for f in _files(path):
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
                    relations.setdefault(a, []).append(f"{kind} {b}")
                    continue
                if obj.get("status") == "deleted":
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
        if item.source_id in relations:
            item.extra["relations"] = relations[item.source_id]  # "<type> <other memory's id>"
    return items


def _line_order(problem: str) -> tuple[str, int]:
    where = problem.split(":", 1)[0]
    head, _, n = where.rpartition(" ")
    return (head, int(n)) if n.isdigit() else (where, 0)
