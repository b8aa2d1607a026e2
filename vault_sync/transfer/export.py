"""export: every memory with its text, owned keys, links and path, read from the vault
(the source of truth) as JSON lines or CSV. The JSON lines keep each note's frontmatter
block verbatim, so `import jsonl` rebuilds the same notes byte for byte."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Iterator

from ..dates import format_datetime
from ..errors import InvalidInput
from ..fmblock import find_block
from ..index import queries
from ..limits import quote
from ..note import OWNED_KEYS, parse_note

if TYPE_CHECKING:
    from ..service import MemoryService

SCOPES = {"stm": ("stm",), "ltm": ("ltm",), "all": ("stm", "ltm", "archive")}
FORMATS = ("jsonl", "csv")
CSV_COLUMNS = ("path", "kind", "id", "title", "tags", "created", "last_used", "use_count", "strength", "status",
               "decay_score", "source", "source_id", "links", "text")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_datetime(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def records(svc: "MemoryService", scope: str = "all") -> Iterator[dict[str, Any]]:
    if scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}, got {quote(scope)}")
    for row in queries.export_rows(svc.store, SCOPES[scope]):
        if row["id"] is None:
            continue  # not a memory (the generated LTM index, a note without frontmatter)
        try:
            data = svc.layout.abs(row["path"]).read_bytes()
        except OSError:
            continue  # gone since the last sync: the index catches up on its own
        note = parse_note(row["path"], data)
        block = find_block(note.text) if note.has_frontmatter else None
        yield {
            "path": row["path"], "kind": row["kind"], "id": note.fields.id, "title": note.title,
            "owned": {k: _plain(note.frontmatter[k]) for k in OWNED_KEYS if k in note.frontmatter},
            "source": row["source"], "source_id": row["source_id"],
            "links": [link.target for link in note.links],
            "frontmatter": note.text[block.yaml_start:block.yaml_end] if block else "",
            "text": note.body,
        }


def to_jsonl(svc: "MemoryService", scope: str = "all") -> Iterator[str]:
    for rec in records(svc, scope):
        yield json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n"


def to_csv(svc: "MemoryService", scope: str = "all") -> Iterator[str]:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(CSV_COLUMNS)
    for rec in records(svc, scope):
        owned = rec["owned"]
        tags = owned.get("tags")
        writer.writerow([
            rec["path"], rec["kind"], rec["id"], rec["title"], ";".join(tags) if isinstance(tags, list) else tags or "",
            owned.get("created", ""), owned.get("last_used", ""), owned.get("use_count", ""), owned.get("strength", ""),
            owned.get("status", ""), owned.get("decay_score", ""), rec["source"] or "", rec["source_id"] or "",
            ";".join(rec["links"]), rec["text"],
        ])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    if buf.getvalue():
        yield buf.getvalue()


def export(svc: "MemoryService", fmt: str = "jsonl", scope: str = "all") -> Iterator[str]:
    if fmt not in FORMATS:
        raise InvalidInput(f"format must be one of {', '.join(FORMATS)}, got {quote(fmt)}")
    return to_jsonl(svc, scope) if fmt == "jsonl" else to_csv(svc, scope)
