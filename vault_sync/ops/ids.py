"""Duplicate-id repair: runs after a sync (the indexer only reads the vault).

A person copying a memory's file gives two notes one id; the later copy gets a new id,
surgically, through the write path.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Callable

from ..edit import patch_bytes
from ..engine import Engine
from ..index import queries
from ..patch import PatchError

if TYPE_CHECKING:
    from ..index.sync import SyncReport

MEMORY_KINDS = ("stm", "ltm", "archive")


def fix_duplicate_ids(engine: Engine, report: "SyncReport") -> None:
    """Two memories with one id: the later copy gets a new id, surgically."""
    ids = report.new_ids
    if not ids:
        return
    report.new_ids = set()  # checked once: the re-sync of a fixed note reports its new id
    # a memory keeps its id over a person's note that copied it; then the oldest row wins
    rows = queries.rows_with_ids(engine.store, list(ids))
    first: dict[str, str] = {}
    for r in rows:
        if r["id"] not in first:
            first[r["id"]] = r["path"]
            continue
        if r["kind"] not in MEMORY_KINDS or not r["writable"]:
            continue
        path = engine.layout.abs(r["path"])
        try:
            data = path.read_bytes()
        except OSError:
            continue
        new_id = str(uuid.uuid4())
        try:
            engine.writes.update(r["path"], _new_id(new_id), expected=data)
        except (PatchError, OSError) as exc:
            report.id_fixes.append(
                f"{r['path']}: duplicate id {r['id']} (same as {first[r['id']]}); could not fix: {exc}"
            )
            continue
        report.id_fixes.append(f"{r['path']}: duplicate id {r['id']} (same as {first[r['id']]}); given new id {new_id}")


def _new_id(new_id: str) -> Callable[[bytes], bytes]:
    return lambda current: patch_bytes(current, {"id": new_id})
