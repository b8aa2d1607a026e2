"""A client's `batch_id`: one id names one batch of memories.

A retry of a batch (the same items after a crash or a lost answer) goes on and adds nothing
twice (save_batch.py: every note the batch made or reinforced records it as `last_batch`).
The same id sent with other items is a client's mistake that would otherwise pass in
silence, half counted as a retry: it is refused before anything is written. What each id
was first sent with is kept as a fingerprint in the index's `meta` table (not a note's
frontmatter: it says nothing about a memory); an index made anew forgets it, and a retry
is then still recognised by `last_batch`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..engine import Engine
from ..errors import InvalidInput
from ..limits import check_name
from ..secret_gate import check_fields

MAX_BATCH_ID = 200


def check_batch_id(batch_id: Any) -> str | None:
    if batch_id is None:
        return None
    check_fields({"batch_id": batch_id})  # written to frontmatter like any value
    bid = check_name("batch_id", batch_id, MAX_BATCH_ID).strip()
    if not bid:
        raise InvalidInput("batch_id must be a non-empty id (text)")
    return bid


def fingerprint(items: list[Any], conversation: str | None, project: str | None) -> str:
    blob = json.dumps(
        {"items": items, "conversation": conversation, "project": project},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def claim(engine: Engine, batch_id: str, items: list[Any], conversation: str | None, project: str | None) -> None:
    """Record what `batch_id` names, or refuse it for other items (call under the write lock)."""
    key = f"batch:{batch_id}"
    mark = fingerprint(items, conversation, project)
    known = engine.store.get_meta(key)
    if known is None:
        engine.store.set_meta(key, mark)
    elif known != mark:
        raise InvalidInput(
            f"batch_id {batch_id!r} was already used for other memories: a retry sends the same "
            "items; give a new batch a new batch_id (nothing was saved)"
        )
