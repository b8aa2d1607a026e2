"""Shared reading helpers for the format modules: files, JSON lines, dates, numbers."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ..dates import parse_datetime
from ..fmblock import UnclosedFrontmatter, YamlProblem, find_block, load_yaml
from ..limits import MAX_METADATA_CHARS, MAX_REF_CHARS, MAX_USE_COUNT, quote
from .core import BadSource

MAX_SOURCE_BYTES = 512 * 1024 * 1024  # a JSON source file (10,000 memories take ~3 MB)
MAX_NOTE_BYTES = 16 * 1024 * 1024  # one Markdown file of a source folder
MAX_LINE_CHARS = 8 * 1024 * 1024  # one JSON line (a memory's text is at most 200,000 characters)


def read_text(path: Path, where: str, problems: list[str], limit: int = MAX_SOURCE_BYTES) -> str | None:
    """The file's text; None (with the cause in `problems`) when it cannot be read, is larger
    than `limit` (checked before reading) or is not UTF-8."""
    try:
        size = path.stat().st_size
        if size > limit:
            problems.append(f"{where}: too large ({size:,} bytes, limit {limit:,})")
            return None
        data = path.read_bytes()
    except OSError as exc:
        problems.append(f"{where}: cannot be read ({exc.strerror or exc})")
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(f"{where}: not valid UTF-8 (byte {exc.start})")
        return None


def loads(text: str) -> Any:
    """json.loads that reports deep nesting as a ValueError instead of a RecursionError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, object) for each non-blank line; a line that is not a JSON object
    comes back as the cause (a string) so the caller can list every bad line."""
    problems: list[str] = []
    text = read_text(path, str(path), problems)
    if text is None:
        raise BadSource(problems)
    # only "\n" ends a line: JSON text may hold U+2028 and other breaks str.splitlines() splits on
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE_CHARS:
            yield n, f"too long ({len(line):,} characters, limit {MAX_LINE_CHARS:,})"
            continue
        try:
            obj = loads(line)
        except json.JSONDecodeError as exc:
            yield n, f"not JSON ({exc.msg})"
            continue
        except ValueError as exc:
            yield n, f"not JSON ({exc})"
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


def whole(value: Any, what: str, default: int, most: int = MAX_USE_COUNT) -> int:
    if value is None:
        return default
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()))
        or value < 0
    ):
        raise ValueError(f"{what} {quote(value)} is not a whole number >= 0")
    if value > most:
        raise ValueError(f"{what} {quote(value)} is over the limit ({most:,})")
    return int(value)


def bounded_id(value: Any, what: str) -> str:
    """An id (text or a whole number), at most MAX_REF_CHARS long."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise ValueError(f"no usable `{what}` (text or a number)")
    text = str(value).strip()
    if len(text) > MAX_REF_CHARS:
        raise ValueError(f"`{what}` is too long ({len(text):,} characters, limit {MAX_REF_CHARS:,})")
    return text


def bounded_name(value: Any, what: str, most: int) -> str:
    if not isinstance(value, str):
        raise ValueError(f"`{what}` is not text")
    if len(value) > most:
        raise ValueError(f"`{what}` is too long ({len(value):,} characters, limit {most:,})")
    return value


def bounded_json(value: Any, what: str, most: int = MAX_METADATA_CHARS) -> str:
    """A free-form value as one line of JSON, at most `most` characters (frontmatter stays readable)."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)  # a YAML date: its ISO text
    except (TypeError, ValueError, RecursionError):
        raise ValueError(f"`{what}` cannot be kept as JSON") from None
    if len(text) > most:
        raise ValueError(f"`{what}` is too large ({len(text):,} characters as JSON, limit {most:,})")
    return text


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


def no_link(path: Path, where: str, problems: list[str]) -> bool:
    """False (and a problem) for a symbolic link: a source folder's links are not followed, so
    an import reads only what lies in the folder it was given."""
    if path.is_symlink():
        problems.append(f"{where}: a symbolic link (not followed; copy the file in to import it)")
        return False
    return True


def source_files(root: Path, pattern: str, problems: list[str], recursive: bool = True) -> list[Path]:
    """The files matching `pattern` in `root` (hidden folders skipped), in a stable order; `root`
    itself when it is a file. A symbolic link inside the folder is a problem, never followed."""
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise BadSource([f"{root}: no such file or folder"])
    out = []
    for p in sorted(root.rglob(pattern) if recursive else root.glob(pattern)):
        rel = p.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue
        # a linked folder on the way (pathlib does not descend into one; belt and braces)
        if any((root / Path(*rel.parts[:i])).is_symlink() for i in range(1, len(rel.parts))):
            continue
        if no_link(p, rel.as_posix(), problems) and p.is_file():
            out.append(p)
    return out


def markdown_files(root: Path, problems: list[str]) -> list[Path]:
    return source_files(root, "*.md", problems)


def split_note(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter, body); raises ValueError with the cause."""
    try:
        block = find_block(text)
    except UnclosedFrontmatter as exc:
        raise ValueError(str(exc)) from None
    if block is None:
        return {}, text
    try:
        fm = load_yaml(text[block.yaml_start : block.yaml_end]) or {}
    except (YamlProblem, ValueError) as exc:
        raise ValueError(f"frontmatter: {exc}") from None
    if not isinstance(fm, dict):
        raise ValueError("frontmatter is not a mapping")
    return fm, text[block.body_start :]


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
    for f in markdown_files(path, problems):
        rel = f.relative_to(root).as_posix()
        text = read_text(f, rel, problems, MAX_NOTE_BYTES)
        if text is None:
            continue
        try:
            fm, body = split_note(text)
        except ValueError as exc:
            problems.append(f"{rel}: {exc}")
            continue
        yield SourceNote(f, rel, fm, body, datetime.fromtimestamp(f.stat().st_mtime, tz=timezone.utc))
