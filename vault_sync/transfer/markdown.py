"""Any folder of Markdown: one memory per note; a CLAUDE.md gives one memory per `##`
section; a note that is only a bulleted list (ChatGPT memories pasted as a list) gives one
per bullet. The source files are only read."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from pathlib import Path

from ..note import normalized_hash
from .core import BadSource, Item
from .readers import markdown_notes

SOURCE = "markdown"
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)


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
        if not line.strip() or _H1.match(line):
            continue
        m = _BULLET.match(line)
        if m is None:
            return None
        out.append((n, m.group(1)))
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
            h1 = _H1.search(body)
            add(rel, rel, body.strip("\n"), h1.group(1) if h1 else note.path.stem)
    if problems:
        raise BadSource(problems)
    return items
