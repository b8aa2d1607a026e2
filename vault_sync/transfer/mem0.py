"""Mem0: the JSON its `get_all` answers (and the platform's export), a list, or an object
with the list in `results` (or `memories`), of records with `id`, `memory`, `hash`,
`created_at`, `updated_at` (ISO), `metadata`, the ids it scopes a memory by (`user_id`,
`agent_id`, `run_id`, `actor_id`, `role`), `expiration_date`, and on the platform `categories`.

Categories become tags; `metadata` and the scoping ids (which `get_all` lifts out of the
stored metadata) are kept together as one line of JSON in `source_metadata`, at most
limits.MAX_METADATA_CHARS long. `hash` is Mem0's own digest of the text: not kept."""

from __future__ import annotations

import json
from pathlib import Path

from .core import BadSource, Item
from .readers import bounded_id, bounded_json, loads, read_text, text_list, when

SOURCE = "mem0"
SCOPE_KEYS = ("user_id", "agent_id", "run_id", "actor_id", "role", "expiration_date")


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
            if not isinstance(mid, str):
                raise ValueError("no `id` text")
            if not isinstance(memory, str):
                raise ValueError("no `memory` text")
            meta = obj.get("metadata")
            if meta is not None and not isinstance(meta, dict):
                raise ValueError("`metadata` is not an object")
            kept = {**(meta or {}), **{k: obj[k] for k in SCOPE_KEYS if obj.get(k) is not None}}
            created = when(obj.get("created_at"), "created_at")
            item = Item(
                where=where,
                source_id=bounded_id(mid, "id"),
                text=memory,
                tags=text_list(obj.get("categories"), "categories"),
                created=created,
                last_used=when(obj.get("updated_at"), "updated_at") or created,
            )
            if kept:
                # one line of JSON: frontmatter holds scalars, and the secret gate reads it whole
                item.extra["source_metadata"] = bounded_json(kept, "metadata")
            items.append(item)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        raise BadSource(problems)
    return items
