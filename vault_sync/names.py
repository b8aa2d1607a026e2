"""File names and tags that are safe everywhere a vault syncs to."""

from __future__ import annotations

import re
from typing import Callable

from .errors import InvalidInput
from .limits import _BIDI, check_tags, clean_name, quote
from .wordcount import first_words

_ILLEGAL = re.compile(r'[<>:"/\\|?*\x00-\x1f#^\[\]]')  # Windows + characters that break [[links]]
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
MAX_NAME = 80
MAX_NAME_BYTES = 180  # file names are limited to 255 bytes; room for ' 999.md' and temp names
_TAG_OK = re.compile(r"^[\w/-]+$")
# where a sentence ends in scripts whose names would otherwise run on (。！？ and the Thai,
# Khmer, Myanmar, Devanagari and Arabic stops): a name is the first sentence at most
_SENTENCE_END = re.compile(r"[。！？｡\u17d4\u17d5\u104a\u104b\u0964\u0965\u06d4\u061f]")


def slug_from(text: str, max_words: int = 8) -> str:
    """A readable file stem from a title or the first words of a text."""
    first = next((ln for ln in text.strip().splitlines() if ln.strip()), "")
    first = re.sub(r"^#+\s*", "", first)  # a heading's marks
    first = re.sub(r"\[\[([^\]|]*\|)?([^\]]*)\]\]", r"\2", first)  # [[a|b]] -> b
    first = re.sub(r"[*_`~]", "", first)
    # about max_words words in any script: a Chinese or Thai line has no spaces to cut at
    stem = clean_name(first_words(_SENTENCE_END.split(first, 1)[0] or first, max_words))  # one spelling
    stem = "".join(ch for ch in stem if ch not in _BIDI)  # direction marks in a file name only mislead
    stem = _ILLEGAL.sub(" ", stem)
    stem = re.sub(r"\s+", " ", stem).strip(" .")
    if len(stem) > MAX_NAME or len(stem.encode("utf-8")) > MAX_NAME_BYTES:
        cut = stem[:MAX_NAME]
        while len(cut.encode("utf-8")) > MAX_NAME_BYTES:
            cut = cut[:-1]
        stem = cut.rsplit(" ", 1)[0].strip(" .") if " " in cut.strip() else cut.strip(" .")
        stem = stem or cut.strip(" .")
    if not stem:
        stem = "Memory"
    base = stem.split(".")[0]
    if base.strip().lower() in _RESERVED:  # Windows: CON, CON.txt, "con .x" are all the device
        stem = f"{base.rstrip()} note{stem[len(base) :]}"
    return stem


def unique_stem(stem: str, taken: set[str]) -> str:
    """`stem`, or `stem 2`, `stem 3`... not in `taken` (lower-cased names)."""
    if stem.lower() not in taken:
        return stem
    n = 2
    while f"{stem} {n}".lower() in taken:
        n += 1
    return f"{stem} {n}"


def create_under_free_name(create: Callable[[str], object], folder: str, stem: str, taken: set[str]) -> str:
    """Create a new note `folder/<stem>.md` (or `stem 2`...) with `create(rel)`, which raises
    FileExistsError when that name appeared meanwhile (another device, the person); the vault
    path used. `taken` (lower-cased names) gains each name tried."""
    for _ in range(20):
        name = unique_stem(stem, taken)
        taken.add(name.lower())
        rel = f"{folder}/{name}.md"
        try:
            create(rel)
            return rel
        except FileExistsError:
            continue
    raise InvalidInput(f"could not find a free file name for {quote(stem)}")  # twenty collisions in a row


def free_rel(taken: Callable[[str], bool], folder: str, stem: str) -> str:
    """folder/stem.md, or with a number when `taken` says that name is."""
    rel = f"{folder}/{stem}.md"
    n = 2
    while taken(rel):
        rel = f"{folder}/{stem} {n}.md"
        n += 1
        if n > 1000:
            raise InvalidInput(f"no free name for {stem!r} in {folder}")
    return rel


def clean_tags(tags: list[str] | None) -> list[str]:
    """Obsidian's tag rules: no spaces, nested with '/', not only digits."""
    out: list[str] = []
    for raw in check_tags(tags) or []:
        for part in raw.split(","):
            tag = part.strip().lstrip("#").strip()
            if not tag:
                continue
            tag = re.sub(r"/+", "/", re.sub(r"\s+", "-", tag)).strip("/")
            if not _TAG_OK.match(tag):
                raise InvalidInput(f"tag {quote(part.strip())}: only letters, digits, _, - and / are allowed")
            if re.fullmatch(r"[\d/]+", tag):
                raise InvalidInput(f"tag {quote(tag)} must contain at least one letter")
            if tag.lower() not in {t.lower() for t in out}:  # Obsidian's tags ignore case
                out.append(tag)
    return out
