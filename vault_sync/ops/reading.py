"""Reading memories and notes whole: a memory with its text, links, backlinks and history;
any note of the vault by path, as text."""

from __future__ import annotations

from typing import Any

from .. import lookups
from ..engine import Engine
from ..errors import InvalidInput, NotFound, PathOutsideVault
from ..index import queries
from ..limits import REF_CHARS, check_refs, quote, spellings
from .relate import backlinks, outlinks


def get_memory(engine: Engine, refs: list[str]) -> list[dict[str, Any]]:
    """Memories (or notes) with their text, links and backlinks."""
    out = []
    for ref in check_refs(refs):
        row = lookups.resolve(engine, ref)
        view = lookups.view(engine, row)
        view["body"] = queries.body_of(engine.store, row["rowid"])
        view["links"] = outlinks(engine, row)
        view["backlinks"] = backlinks(engine, row["path"])
        view["history"] = lookups.chain(engine, row["path"])  # the fact's versions, oldest first
        out.append(view)
    return out


def read_note(engine: Engine, path: str) -> dict[str, Any]:
    """Any note of the vault by path (inside the vault only), as text."""
    layout = engine.layout
    rel = layout.safe_rel(path)
    if not rel.lower().endswith(".md"):
        rel += ".md"
    if layout.is_ignored(rel):
        raise PathOutsideVault(f"{quote(path, REF_CHARS)} is in a hidden folder of the vault")
    rel = next((r for r in spellings(rel) if layout.abs(r).is_file()), rel)  # NFD or NFC, as on disk
    target = layout.abs(rel)
    try:
        if not target.is_file():
            raise NotFound(f"no note at {quote(rel, REF_CHARS)}")
        size = target.stat().st_size
    except OSError as exc:
        raise NotFound(f"cannot read {quote(rel, REF_CHARS)}: {exc.strerror or exc}") from None
    if size > engine.settings.max_note_bytes:
        raise InvalidInput(f"{rel} is too large to read here ({size} bytes)")
    try:
        text = target.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{rel} is not valid UTF-8 text") from None
    row = engine.store.note(rel)
    return {"path": rel, "text": text, "note": lookups.view(engine, row) if row is not None else None}
