"""Patching a note file's bytes: BOM kept, owned keys only, written atomically and conditionally."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .patch import patch_frontmatter, swap_numbers
from .writer import WriteResult, update_file

BOM_BYTES = b"\xef\xbb\xbf"


def edit_text(data: bytes, edit: Callable[[str], str | None]) -> bytes | None:
    """`edit` applied to a note's text (UTF-8, any leading BOM set aside and put back); None
    when `edit` returns None (nothing to change). UnicodeDecodeError when not UTF-8."""
    bom = data.startswith(BOM_BYTES)
    out = edit((data[3:] if bom else data).decode("utf-8"))
    if out is None:
        return None
    return (BOM_BYTES if bom else b"") + out.encode("utf-8")


def newline_of(text: str) -> str:
    """The newline a note uses: CRLF when it has any, else LF (what a text added to it uses)."""
    return "\r\n" if "\r\n" in text else "\n"


def patch_bytes(data: bytes, updates: dict[str, Any], parsed: dict[str, Any] | None = None) -> bytes:
    """`parsed`: the frontmatter as parse_note read it from these bytes (saves a YAML parse)."""
    out = edit_text(data, lambda text: patch_frontmatter(text, updates, parsed))
    assert out is not None  # patch_frontmatter always returns a text
    return out


def swap_bytes(data: bytes, updates: dict[str, float]) -> bytes | None:
    """patch.swap_numbers on a note's bytes (None: use patch_bytes); see its precondition."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    out = swap_numbers(text, updates)
    return None if out is None else out.encode("utf-8")


def patch_file(path: Path, expected: bytes, updates: dict[str, Any]) -> WriteResult:
    """Apply `updates` to the note last read as `expected`; a newer edit is kept and re-patched."""
    return update_file(path, expected, lambda current: patch_bytes(current, updates))
