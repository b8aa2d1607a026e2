"""relate and graph: relations are links in the vault, read back from the index."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from .. import lookups
from ..edit import patch_bytes
from ..engine import Engine
from ..errors import InvalidInput, NoteProblem
from ..index import queries
from ..index.resolver import build_resolver, link_names
from ..limits import MAX_RELATION_CHARS, check_name, quote
from ..note import OWNED_KEYS, parse_note, stem_of
from ..secret_gate import check_fields
from .moves import check_size

# keys the engine reads or writes besides OWNED_KEYS: a relation list must not land in them
_RESERVED = (
    "pinned",
    "aliases",
    "merged_into",
    "archive_reason",
    "archived_from",
    "supersedes",
    "superseded_by",
    "last_batch",
    "source",
    "source_id",
    "imported_ids",
    "relations",
)  # the last four: imports (transfer)
_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


def relation_key(rel_type: str | None) -> str:
    """The frontmatter key a relation of this type is written under (InvalidInput if none)."""
    check_name("the relation type", rel_type if rel_type is not None else "related", MAX_RELATION_CHARS)
    key = (rel_type or "related").strip().lower()
    if not _TYPE.fullmatch(key):
        raise InvalidInput(f"relation type {quote(rel_type)}: use lower-case letters, digits and _")
    if key != "related" and (key in OWNED_KEYS or key in _RESERVED):
        raise InvalidInput(f"relation type {quote(rel_type)} is a key mnemovault owns; choose another name")
    return key


def relate(engine: Engine, a: str, b: str, rel_type: str = "related") -> dict[str, Any]:
    """Add "[[B]]" to A's `related` list (or to the list named by the type)."""
    check_fields({"relation type": rel_type})  # the type becomes a frontmatter key
    key = relation_key(rel_type)
    src, dst = lookups.resolve(engine, a), lookups.resolve(engine, b)
    if src["path"] == dst["path"]:
        raise InvalidInput("a note cannot be related to itself")
    if src["kind"] == "note":
        raise InvalidInput(f"{src['path']} is one of your notes; relations are written on memories only")
    check_size(engine, src)
    item = f"[[{stem_of(dst['path'])}]]"
    added = {"value": False}

    def transform(current: bytes) -> bytes | None:
        note = parse_note(src["path"], current)
        if not note.writable:
            raise NoteProblem(f"{src['path']}: fix its frontmatter first")
        existing = note.frontmatter.get(key)
        if existing is None:
            items: list[Any] = []
        elif isinstance(existing, list):
            items = list(existing)
        else:
            raise NoteProblem(f"{src['path']}: `{key}` is not a list; not changing it")
        if any(isinstance(x, str) and x.strip().lower() == item.lower() for x in items):
            return None
        added["value"] = True
        return patch_bytes(current, {key: items + [item]})

    engine.writes.update(src["path"], transform)
    return {"from": src["path"], "to": dst["path"], "type": key, "added": added["value"]}


def graph(engine: Engine, include_notes: bool = True) -> dict[str, Any]:
    """Nodes (memories, and the person's notes linked with them) and resolved edges."""
    resolver = build_resolver(engine.store)
    rows = queries.graph_nodes(engine.store)
    by_path = {r["path"]: r for r in rows}
    edges = []
    for r in queries.all_edges(engine.store):
        dst = resolver.resolve(r["target"], r["src"], bool(r["markdown"]))
        if dst is None or dst == r["src"]:
            continue
        edges.append({"source": r["src"], "target": dst, "kind": r["kind"]})
    keep = {p for p, r in by_path.items() if r["kind"] != "note"}
    if include_notes:
        keep |= {e["source"] for e in edges if e["target"] in keep} | {
            e["target"] for e in edges if e["source"] in keep
        }
    edges = [e for e in edges if e["source"] in keep and e["target"] in keep]
    nodes = [
        {key: by_path[p][key] for key in ("path", "id", "kind", "title", "status", "created", "last_used")}
        for p in sorted(keep)
    ]
    return {"nodes": nodes, "edges": sorted(edges, key=lambda e: (e["source"], e["target"], e["kind"]))}


def backlinks(engine: Engine, rel: str) -> list[dict[str, Any]]:
    resolver = build_resolver(engine.store)
    out = []
    aliases = queries.aliases_of_path(engine.store, rel)
    for r in queries.links_to_names(engine.store, [*link_names(stem_of(rel)), *aliases]):
        if resolver.resolve(r["target"], r["src"], bool(r["markdown"])) == rel and r["src"] != rel:
            out.append({"source": r["src"], "kind": r["kind"], "subpath": r["subpath"]})
    return out


def outlinks(engine: Engine, row: sqlite3.Row) -> list[dict[str, Any]]:
    resolver = build_resolver(engine.store)
    out = []
    for r in queries.outlinks_of(engine.store, row["rowid"]):
        out.append(
            {
                "target": r["target"] + r["subpath"],
                "kind": r["kind"],
                "resolved": resolver.resolve(r["target"], row["path"], bool(r["markdown"])),
            }
        )
    return out
