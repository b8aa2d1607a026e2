"""Basic Memory: a project folder of Markdown, one entity per note (frontmatter `title`,
`permalink`, `tags`), with `- [category] text` observations and `- relation [[Target]]`
relations in the body. Each entity becomes one memory whose text is the whole body, so
observations stay text and relations stay [[links]]. The source folder is only read."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..fmblock import UnclosedFrontmatter, YamlProblem, find_block, load_yaml
from .core import BadSource, Item
from .readers import markdown_files, read_text, text_list

SOURCE = "basic-memory"


def split_note(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter, body); raises ValueError with the cause."""
    try:
        block = find_block(text)
    except UnclosedFrontmatter as exc:
        raise ValueError(str(exc)) from None
    if block is None:
        return {}, text
    try:
        fm = load_yaml(text[block.yaml_start:block.yaml_end]) or {}
    except (YamlProblem, ValueError) as exc:
        raise ValueError(f"frontmatter: {exc}") from None
    if not isinstance(fm, dict):
        raise ValueError("frontmatter is not a mapping")
    return fm, text[block.body_start:]


def parse(path: Path) -> list[Item]:
    root = path if path.is_dir() else path.parent
    items: list[Item] = []
    problems: list[str] = []
    for f in markdown_files(path):
        rel = f.relative_to(root).as_posix()
        text = read_text(f, rel, problems)
        if text is None:
            continue
        try:
            fm, body = split_note(text)
            title = fm.get("title")
            if title is not None and not isinstance(title, str):
                raise ValueError("title is not text")
            tags = [t.lstrip("#") for t in text_list(fm.get("tags"), "tags")]
        except ValueError as exc:
            problems.append(f"{rel}: {exc}")
            continue
        permalink = fm.get("permalink")
        when = datetime.fromtimestamp(f.stat().st_mtime, tz=timezone.utc)
        kind = fm.get("type")
        item = Item(where=rel, source_id=str(permalink) if isinstance(permalink, str) and permalink else rel[:-3],
                    text=body.strip("\n"), title=title or f.stem, tags=tags, created=when, last_used=when)
        if isinstance(kind, str) and kind:
            item.extra["entity_type"] = kind
        items.append(item)
    if problems:
        raise BadSource(problems)
    return items
