"""Any folder of Markdown: one memory per note; a CLAUDE.md gives one memory per `##`
section; a note that is only a bulleted list (ChatGPT memories pasted as a list) gives one
per bullet. The source files are only read."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

from ..note import normalized_hash
from .core import BadSource, Item
from .readers import markdown_notes

SOURCE = "markdown"


def bullet(line: str) -> str | None:
    """The text of a `- item`, `* item`, `+ item`, `1. item` or `1) item` line, else None (a
    scan: the regex it replaces was quadratic on a line of blanks)."""
    rest = line.lstrip()
    if rest[:1] in ("-", "*", "+"):
        rest = rest[1:]
    else:
        digits = len(rest) - len(rest.lstrip("0123456789"))
        if digits == 0 or rest[digits : digits + 1] not in (".", ")"):
            return None
        rest = rest[digits + 1 :]
    if not rest[:1].isspace():
        return None
    return rest.strip() or None


def heading(line: str) -> str | None:
    """The title of a `# Title` line (a closing run of `#` left out), else None. A scan, not a
    regex (overlapping blank runs) took 24 s on a 2 KB line of blanks."""
    if not line.startswith("#") or line[1:2] not in (" ", "\t"):
        return None
    title = line[1:].strip()
    return title.rstrip("#").rstrip() or title or None


def first_heading(body: str) -> str | None:
    for line in body.splitlines():
        if (title := heading(line)) is not None:
            return title
    return None


def _sections(body: str) -> list[tuple[str, str]]:
    """(heading, text) per `## ` section; text before the first one is left out (a preamble)."""
    out: list[tuple[str, str]] = []
    heading: str | None = None
    lines: list[str] = []
    for line in body.splitlines():
        if line.startswith("## "):
            if heading is not None:
                out.append((heading, "\n".join(lines).strip()))
            heading, lines = line[3:].strip().strip("#").strip(), []
        elif heading is not None:
            lines.append(line)
    if heading is not None:
        out.append((heading, "\n".join(lines).strip()))
    return out


def _bullets(body: str) -> list[tuple[int, str]] | None:
    """(line number, text) per bullet when the body is a list and nothing else (a heading aside)."""
    out = []
    for n, line in enumerate(body.splitlines(), 1):
        if not line.strip() or heading(line) is not None:
            continue
        text = bullet(line)
        if text is None:
            return None
        out.append((n, text))
    return out or None


def _short(text: str) -> str:
    return hashlib.blake2b(normalized_hash(text).encode(), digest_size=6).hexdigest()


def parse(path: Path) -> list[Item]:
    items: list[Item] = []
    problems: list[str] = []
    for note in markdown_notes(path, problems):
        rel, body = note.rel, note.body

        def add(where: str, sid: str, text: str, title: str | None = None, when: datetime = note.modified) -> None:
            items.append(Item(where=where, source_id=sid, text=text, title=title, created=when, last_used=when))

        if note.path.name.lower() == "claude.md" and _sections(body):
            for heading, section in _sections(body):
                add(f"{rel} ## {heading}", f"{rel}#{heading}", f"{heading}: {section}" if section else heading, heading)
        elif (bullets := _bullets(body)) is not None:
            for n, bullet in bullets:
                # the id is the text's hash: a re-ordered list is still the same memories
                add(f"{rel} line {n}", f"{rel}:{_short(bullet)}", bullet)
        else:
            add(rel, rel, body.strip("\n"), first_heading(body) or note.path.stem)
    if problems:
        raise BadSource(problems)
    return items
