"""Basic Memory: a project folder of Markdown, one entity per note (frontmatter `title`,
`type`, `permalink`, `tags`, and any other keys its `write_note` was given as metadata), with
`- [category] text` observations and `- relation [[Target]]` relations in the body. Each
entity becomes one memory whose text is the whole body, so observations stay text and
relations stay [[links]]; its other frontmatter keys are kept as one line of JSON in
`source_metadata`. The source folder is only read.

Two files with one permalink (a note copied by hand keeps the original's) are both imported:
the older file keeps the permalink as its id, each other one gets `<permalink>-1`, `-2`, ...
(the first free one, as Basic Memory's own sync renames the copy), and the result lists them
in `duplicate_permalinks`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..limits import MAX_TITLE_CHARS
from .core import BadSource, Item, Source
from .readers import bounded_json, bounded_name, markdown_notes, text_list

SOURCE = "basic-memory"
READ_KEYS = ("title", "type", "permalink", "tags")  # what becomes the memory's own fields


def _item(note: Any) -> Item:
    fm = note.frontmatter
    title = fm.get("title")
    if title is not None and not isinstance(title, str):
        raise ValueError("title is not text")
    tags = [t.lstrip("#") for t in text_list(fm.get("tags"), "tags")]
    permalink = fm.get("permalink")
    kind = fm.get("type")
    item = Item(
        where=note.rel,
        source_id=permalink if isinstance(permalink, str) and permalink else note.rel[:-3],
        text=note.body.strip("\n"),
        title=title or note.path.stem,
        tags=tags,
        created=note.modified,
        last_used=note.modified,
    )
    if isinstance(kind, str) and kind:
        item.extra["entity_type"] = bounded_name(kind, "type", MAX_TITLE_CHARS)
    more = {k: v for k, v in fm.items() if k not in READ_KEYS}
    if more:
        item.extra["source_metadata"] = bounded_json(more, "frontmatter (besides title, type, permalink, tags)")
    return item


def _one_id_each(items: list[Item]) -> list[dict[str, Any]]:
    """Give every item but the oldest of a shared id the first free `<id>-N`; the report."""
    by_id: dict[str, list[Item]] = {}
    for item in items:
        by_id.setdefault(item.source_id, []).append(item)
    taken = set(by_id)
    report = []
    for sid, group in by_id.items():
        if len(group) < 2:
            continue
        group.sort(key=lambda i: (i.created, i.where))  # the copy is the newer file
        for item in group[1:]:
            n = 1
            while f"{sid}-{n}" in taken:
                n += 1
            item.source_id = f"{sid}-{n}"
            taken.add(item.source_id)
        report.append({"permalink": sid, "files": [i.where for i in group], "ids": [i.source_id for i in group]})
    return report


def parse(path: Path) -> Source:
    items: list[Item] = []
    problems: list[str] = []
    for note in markdown_notes(path, problems):
        try:
            items.append(_item(note))
        except ValueError as exc:
            problems.append(f"{note.rel}: {exc}")
    if problems:
        raise BadSource(problems)
    return Source(items, {"duplicate_permalinks": _one_id_each(items)})
