"""Patching a note file's bytes: BOM kept, owned keys only, written atomically and conditionally."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .patch import patch_frontmatter, swap_numbers
from .writer import WriteResult, update_file

BOM_BYTES = b"\xef\xbb\xbf"


def patch_bytes(data: bytes, updates: dict[str, Any], parsed: dict[str, Any] | None = None) -> bytes:
    """`parsed`: the frontmatter as parse_note read it from these bytes (saves a YAML parse)."""
    bom = data.startswith(BOM_BYTES)
    text = (data[3:] if bom else data).decode("utf-8")
    out = patch_frontmatter(text, updates, parsed).encode("utf-8")
    return BOM_BYTES + out if bom else out


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
