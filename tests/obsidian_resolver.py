"""An independent reading of Obsidian's link rules (docs/links.md), for tests only.

Written from the rules, not from the engine: it imports nothing from vault_sync, extracts
links from the raw text of the forms the tests generate, and resolves them against the
vault's files as they are on disk. tests/engine/test_dangling_property.py compares the engine's
dangling-link report with it over generated vaults.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_WIKI = re.compile(r"!?\[\[([^\[\]\n]*?)\]\]")
_MD = re.compile(r"!?\[[^\[\]\n]*\]\((<[^<>\n]*>|[^()\s]*)\)")
_FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_QUOTED = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")


def links_in(text: str, frontmatter: bool = True) -> list[tuple[str, bool]]:
    """(target without subpath, is a Markdown link) for every vault link in a note's text:
    wikilinks in quoted frontmatter values (Obsidian's properties), and in the body those not
    in code fences or inline code, nor external URLs."""
    out = []
    front = _FRONTMATTER.match(text)
    if front and frontmatter:
        for quoted in _QUOTED.finditer(front.group()):
            for m in _WIKI.finditer(quoted.group()):
                out.append((m.group(1).split("|", 1)[0].split("#", 1)[0].strip(), False))
    text = _FRONTMATTER.sub("", text)
    text = _FENCE.sub("", text)
    text = _INLINE_CODE.sub("", text)
    for m in _WIKI.finditer(text):
        inner = m.group(1).replace("\\|", "|")
        target = inner.split("|", 1)[0].split("#", 1)[0]
        out.append((target.strip(), False))
    for m in _MD.finditer(text):
        raw = m.group(1)
        if raw.startswith("<"):
            out.append((raw[1:-1].split("#", 1)[0].strip(), True))
        elif "://" not in raw and not raw.startswith(("mailto:", "obsidian:")):
            out.append((unquote(raw.split("#", 1)[0]).strip(), True))  # a %23 is a # in the name
    return out


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _fold(path: str) -> str:
    """Case, Unicode composition and the spaces around each part do not tell names apart."""
    return "/".join(part.strip() for part in unicodedata.normalize("NFC", path).lower().split("/"))


def _note_fold(path: str) -> str:
    return _fold(path[:-3]) + ".md" if path.lower().endswith(".md") else _fold(path)


def _best(found: list[str], written: str, folder: str) -> str | None:
    """Ties (several files the target matches): a path spelled as written, else the linking
    note's folder, else the shortest path in UTF-16 units (JavaScript's length); then the name
    spelled as written, then path order."""
    if not found:
        return None
    if written in found:  # spelled exactly so: not one of its case or spacing variants
        return written
    here = [f for f in found if posixpath.dirname(f) == folder]
    pool = here if len(found) > 1 and here else found
    return sorted(pool, key=lambda f: (len(f.encode("utf-16-le")) // 2, _name(f) != _name(written), f))[0]


def _lookup(target: str, source: str, markdown: bool, files: list[str], suffix: str) -> str | None:
    """Rules 2-4: relative first (Markdown links, ./ and ../), then a vault path, then the end
    of a path or a bare name (case, composition and surrounding spaces aside); among several,
    `_best`."""
    folder = posixpath.dirname(source)
    if markdown or target.startswith(("./", "../")):
        joined = posixpath.normpath(posixpath.join(folder, target)) if folder else posixpath.normpath(target)
        hit = _best([f for f in files if _note_fold(f) == _note_fold(joined + suffix)], joined + suffix, folder)
        if hit:
            return hit
    whole = target.lstrip("/") + suffix
    hit = _best([f for f in files if _note_fold(f) == _note_fold(whole)], whole, folder)
    if hit:
        return hit
    want = "/" + _note_fold(whole)
    found = (
        [f for f in files if ("/" + _note_fold(f)).endswith(want)]
        if "/" in target
        else [f for f in files if _note_fold(_name(f)) == _note_fold(_name(whole))]
    )
    return _best(found, whole, folder)


def resolve(target: str, source: str, markdown: bool, notes: list[str], attachments: list[str]) -> str | None:
    """Rule 1: `x.md` names a note only; anything else is tried as a note, then (when its last
    part has an extension) as an attachment of any type. Rule 5: aliases never resolve."""
    if target == "":
        return source  # [[#Heading]]: the same note
    t = target.replace("\\", "/")
    if t.lower().endswith(".md"):
        return _lookup(t[:-3], source, markdown, notes, ".md")
    hit = _lookup(t, source, markdown, notes, ".md")
    if hit is None and "." in _name(t):
        hit = _lookup(t, source, markdown, attachments, "")
    return hit


def dangling(vault: Path) -> list[tuple[str, str]]:
    """(source, target) of every link that resolves to nothing, from the files on disk."""
    files = [
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(vault).parts)
    ]
    notes = [f for f in files if f.lower().endswith(".md")]
    attachments = [f for f in files if not f.lower().endswith(".md")]
    out = []
    for source in notes:
        for target, markdown in links_in((vault / source).read_text(encoding="utf-8")):
            if resolve(target, source, markdown, notes, attachments) is None:
                out.append((source, target))
    return out
