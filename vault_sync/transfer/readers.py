"""Shared reading helpers for the format modules: files, JSON lines, dates, numbers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ..dates import parse_datetime
from ..fmblock import UnclosedFrontmatter, YamlProblem, find_block, load_yaml
from ..limits import quote
from .core import BadSource

MAX_SOURCE_BYTES = 512 * 1024 * 1024


def read_text(path: Path, where: str, problems: list[str]) -> str | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.append(f"{where}: cannot be read ({exc.strerror or exc})")
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(f"{where}: not valid UTF-8 (byte {exc.start})")
        return None


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, object) for each non-blank line; a line that is not a JSON object
    comes back as the cause (a string) so the caller can list every bad line."""
    problems: list[str] = []
    text = read_text(path, str(path), problems)
    if text is None:
        raise BadSource(problems)
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield n, f"not JSON ({exc.msg})"
            continue
        yield n, obj if isinstance(obj, dict) else "not a JSON object"


def when(value: Any, what: str) -> datetime | None:
    """A date from unix seconds (int/float) or ISO text; raises ValueError naming `what`."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"{what} {quote(value)} is not a time") from None
    parsed = parse_datetime(value)
    if parsed is None:
        raise ValueError(f"{what} {quote(value)} is not a date")
    return parsed


def whole(value: Any, what: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 0:
        raise ValueError(f"{what} {quote(value)} is not a whole number >= 0")
    return int(value)


def number(value: Any, what: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} {quote(value)} is not a number")
    return float(value)


def text_list(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"{what} {quote(value)} is not a list of text")


def markdown_files(root: Path) -> list[Path]:
    """Every .md file under `root` (hidden folders skipped), in a stable order."""
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise BadSource([f"{root}: no such file or folder"])
    return sorted(p for p in root.rglob("*.md")
                  if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))


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


@dataclass
class SourceNote:
    path: Path
    rel: str  # its path inside the source folder: how the person finds it, and its default id
    frontmatter: dict[str, Any]
    body: str
    modified: datetime


def markdown_notes(path: Path, problems: list[str]) -> Iterator[SourceNote]:
    """Each Markdown note of a file or folder, read and split (the folder is only read); an
    unreadable or malformed note is added to `problems` and passed over."""
    root = path if path.is_dir() else path.parent
    for f in markdown_files(path):
        rel = f.relative_to(root).as_posix()
        text = read_text(f, rel, problems)
        if text is None:
            continue
        try:
            fm, body = split_note(text)
        except ValueError as exc:
            problems.append(f"{rel}: {exc}")
            continue
        yield SourceNote(f, rel, fm, body, datetime.fromtimestamp(f.stat().st_mtime, tz=timezone.utc))
