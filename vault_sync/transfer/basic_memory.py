"""Basic Memory: a project folder of Markdown, one entity per note (frontmatter `title`,
`permalink`, `tags`), with `- [category] text` observations and `- relation [[Target]]`
relations in the body. Each entity becomes one memory whose text is the whole body, so
observations stay text and relations stay [[links]]. The source folder is only read."""

from __future__ import annotations

from pathlib import Path

from .core import BadSource, Item
from .readers import markdown_notes, text_list

SOURCE = "basic-memory"


def parse(path: Path) -> list[Item]:
    items: list[Item] = []
    problems: list[str] = []
    for note in markdown_notes(path, problems):
        fm, rel = note.frontmatter, note.rel
        try:
            title = fm.get("title")
            if title is not None and not isinstance(title, str):
                raise ValueError("title is not text")
            tags = [t.lstrip("#") for t in text_list(fm.get("tags"), "tags")]
        except ValueError as exc:
            problems.append(f"{rel}: {exc}")
            continue
        permalink = fm.get("permalink")
        kind = fm.get("type")
        item = Item(where=rel, source_id=permalink if isinstance(permalink, str) and permalink else rel[:-3],
                    text=note.body.strip("\n"), title=title or note.path.stem, tags=tags,
                    created=note.modified, last_used=note.modified)
        if isinstance(kind, str) and kind:
            item.extra["entity_type"] = kind
        items.append(item)
    if problems:
        raise BadSource(problems)
    return items
