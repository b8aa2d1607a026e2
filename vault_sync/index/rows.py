"""A note as rows of the index: its row of `notes` (the columns, in order, and the values) and its
rows of the tables beside it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..dates import format_datetime, parse_datetime
from ..note import Note, content_hash, normalized_hash, related_links, stem_of

NOTE_COLUMNS = (
    "path",
    "name",
    "id",
    "kind",
    "title",
    "status",
    "use_count",
    "strength",
    "created",
    "last_used",
    "decay_score",
    "review_priority",
    "review_count",
    "cross_domain_count",
    "promoted_at",
    "archived_at",
    "pinned",
    "writable",
    "checksum",
    "content_hash",
    "body_hash",
    "mtime_ns",
    "size",
    "source",
    "source_id",
    "conversation",
    "said_at",
    "project",
)
COL_CONTENT_HASH, COL_CONVERSATION, COL_SAID_AT = (
    NOTE_COLUMNS.index(c) for c in ("content_hash", "conversation", "said_at")
)


def _iso(value: datetime | None) -> str | None:
    return format_datetime(value) if value is not None else None


@dataclass(frozen=True)
class Stat:
    mtime_ns: int
    size: int


def note_row(note: Note, kind: str, stat: Stat) -> tuple[Any, ...]:
    f = note.fields
    name = stem_of(note.path)
    return (
        note.path,
        name.lower(),
        f.id,
        kind,
        note.title,
        f.status if note.has_frontmatter or f.id else None,
        f.use_count,
        f.strength,
        _iso(f.created),
        _iso(f.last_used),
        f.decay_score,
        f.review_priority,
        f.review_count,
        f.cross_domain_count,
        _iso(f.promoted_at),
        _iso(f.archived_at),
        int(f.pinned),
        int(note.writable),
        note.checksum,
        content_hash(note),
        normalized_hash(note.body),
        stat.mtime_ns,
        stat.size,
        _text_key(note.frontmatter.get("source")),
        _text_key(note.frontmatter.get("source_id")),
        _text_key(note.frontmatter.get("conversation")),
        _said_at(note.frontmatter.get("said_at")),
        note.fields.project,
    )


def _text_key(value: object) -> str | None:
    """A plain frontmatter value as text (an import's source and original id); else None."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    return text or None


def _said_at(value: object) -> str | None:
    """`said_at` as an ISO instant in UTC (sortable as text); None when it is not a date."""
    if value is None or isinstance(value, bool):
        return None
    when = parse_datetime(value)
    return format_datetime(when) if when is not None else None


Row = tuple[Any, ...]


def child_rows(items: list[tuple[int, Note]]) -> tuple[list[Row], list[Row], list[Row], list[Row], list[Row]]:
    """The rows of the tables beside `notes` for these (rowid, note): tags, aliases, links, problems, FTS texts."""
    tags: list[Row] = []
    aliases: list[Row] = []
    links: list[Row] = []
    problems: list[Row] = []
    texts: list[Row] = []
    for rowid, note in items:
        note_tags = note.all_tags
        tags += [(rowid, t) for t in note_tags]
        aliases += [(rowid, a.lower()) for a in note.fields.aliases]
        links += [
            (rowid, ln.target, ln.target.rsplit("/", 1)[-1].lower(), ln.subpath, ln.alias, ln.kind, int(ln.markdown))
            for ln in note.links + related_links(note)
        ]
        problems += [(note.path, p.cause, int(p.blocking)) for p in note.problems]
        texts.append((rowid, note.title, note.body, " ".join(note_tags)))
    return tags, aliases, links, problems, texts
