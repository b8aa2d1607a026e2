"""File names and tags that are safe everywhere a vault syncs to."""

from __future__ import annotations

import re
import unicodedata

from ..errors import InvalidInput

_ILLEGAL = re.compile(r'[<>:"/\\|?*\x00-\x1f#^\[\]]')  # Windows + characters that break [[links]]
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
MAX_NAME = 80
_TAG_OK = re.compile(r"^[\w/-]+$")


def slug_from(text: str, max_words: int = 8) -> str:
    """A readable file stem from a title or the first words of a text."""
    first = next((ln for ln in text.strip().splitlines() if ln.strip()), "")
    first = re.sub(r"^#+\s*", "", first)  # a heading's marks
    first = re.sub(r"\[\[([^\]|]*\|)?([^\]]*)\]\]", r"\2", first)  # [[a|b]] -> b
    words = re.sub(r"[*_`~]", "", first).split()
    stem = " ".join(words[:max_words])
    stem = unicodedata.normalize("NFC", stem)
    stem = _ILLEGAL.sub(" ", stem)
    stem = re.sub(r"\s+", " ", stem).strip(" .")
    if len(stem) > MAX_NAME:
        stem = stem[:MAX_NAME].rsplit(" ", 1)[0].strip(" .") or stem[:MAX_NAME]
    if not stem:
        stem = "Memory"
    if stem.lower().split(".")[0] in _RESERVED:
        stem = f"{stem} note"
    return stem


def unique_stem(stem: str, taken: set[str]) -> str:
    """`stem`, or `stem 2`, `stem 3`... not in `taken` (lower-cased names)."""
    if stem.lower() not in taken:
        return stem
    n = 2
    while f"{stem} {n}".lower() in taken:
        n += 1
    return f"{stem} {n}"


def clean_tags(tags: list[str] | None) -> list[str]:
    """Obsidian's tag rules: no spaces, nested with '/', not only digits."""
    out: list[str] = []
    for raw in tags or []:
        for part in str(raw).split(","):
            tag = part.strip().lstrip("#").strip()
            if not tag:
                continue
            tag = re.sub(r"\s+", "-", tag).strip("/")
            if not _TAG_OK.match(tag):
                raise InvalidInput(f"tag {part.strip()!r}: only letters, digits, _, - and / are allowed")
            if re.fullmatch(r"[\d/]+", tag):
                raise InvalidInput(f"tag {tag!r} must contain at least one letter")
            if tag not in out:
                out.append(tag)
    return out
