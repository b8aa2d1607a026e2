"""Mem0: the JSON of its memories export, a list (or {"results": [...]} / {"memories": [...]})
of objects with `id`, `memory`, `created_at`, `updated_at`, `metadata`, `categories`."""

from __future__ import annotations

import json
from pathlib import Path

from .core import BadSource, Item
from .readers import loads, read_text, text_list, when

SOURCE = "mem0"


def parse(path: Path) -> list[Item]:
    problems: list[str] = []
    text = read_text(path, str(path), problems)
    if text is None:
        raise BadSource(problems)
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        raise BadSource([f"{path.name} line {exc.lineno}: not JSON ({exc.msg})"]) from None
    except ValueError as exc:
        raise BadSource([f"{path.name}: not JSON ({exc})"]) from None
    if isinstance(data, dict):
        data = data.get("results", data.get("memories"))
    if not isinstance(data, list):
        raise BadSource([f"{path.name}: expected a list of memories (or an object with `results`)"])
    items: list[Item] = []
    for n, obj in enumerate(data, 1):
        where = f"item {n}"
        try:
            if not isinstance(obj, dict):
                raise ValueError("not an object")
            mid, memory = obj.get("id"), obj.get("memory")
            if not isinstance(mid, str) or not mid.strip():
                raise ValueError("no `id` text")
            if not isinstance(memory, str):
                raise ValueError("no `memory` text")
            meta = obj.get("metadata")
            if meta is not None and not isinstance(meta, dict):
                raise ValueError("`metadata` is not an object")
            created = when(obj.get("created_at"), "created_at")
            item = Item(where=where, source_id=mid.strip(), text=memory,
                        tags=text_list(obj.get("categories"), "categories"),
                        created=created, last_used=when(obj.get("updated_at"), "updated_at") or created)
            if meta:
                # one line of JSON: frontmatter holds scalars, and the secret gate reads it whole
                item.extra["source_metadata"] = json.dumps(meta, ensure_ascii=False, sort_keys=True)
            items.append(item)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        raise BadSource(problems)
    return items
