"""Rewriting path-qualified links to a note that moved, in every note that has them.

Name-only links ([[name]]) keep resolving because names are unique across the vault;
links that name a folder ([[STM/x]], [t](STM/x.md)) must follow the note.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from ..edit import BOM_BYTES
from ..errors import MnemovaultError
from ..index import queries
from ..index.resolver import Resolver
from ..links import MDLINK, SCHEME, WIKILINK, _block_parser, _strip_inline_code
from ..writer import update_file

if TYPE_CHECKING:
    from ..service import MemoryService


def _masked(text: str) -> str:
    """`text` with code (fences, indented blocks, inline code) blanked, positions kept."""
    if "`" not in text and "~~~" not in text and "    " not in text and "\t" not in text:
        return text
    lines = text.split("\n")
    for token in _block_parser().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            for i in range(token.map[0], min(token.map[1], len(lines))):
                lines[i] = " " * len(lines[i])
    out = "\n".join(lines)
    return _strip_inline_code(out) if "`" in out else out


def rewrite_text(text: str, source: str, resolver: Resolver, old_rel: str, new_rel: str) -> tuple[str, int]:
    """`text` with links that resolve to `old_rel` by path re-pointed at `new_rel`."""
    masked = _masked(text)
    new_stem = new_rel[:-3] if new_rel.lower().endswith(".md") else new_rel
    folder = posixpath.dirname(source)
    edits: list[tuple[int, int, str]] = []
    for m in WIKILINK.finditer(masked):
        inner = text[m.start(1):m.end(1)]
        parts = re.match(r"([^#|]*)(.*)$", inner, re.S)
        target, rest = parts.group(1), parts.group(2)
        if "/" in target and resolver.resolve(target.strip(), source) == old_rel:
            ext = ".md" if target.strip().lower().endswith(".md") else ""
            edits.append((m.start(1), m.end(1), f"{new_stem}{ext}{rest}"))
    for m in MDLINK.finditer(masked):
        url = text[m.start(2):m.end(2)]
        angle = url.startswith("<")
        path, hash_, sub = (url[1:-1] if angle else url).partition("#")
        plain = unquote(path)
        if not plain.lower().endswith(".md") or SCHEME.match(path):
            continue
        if resolver.resolve(plain, source, markdown=True) != old_rel:
            continue
        relative = plain.startswith(("./", "../")) or bool(folder) and _resolves_relative(plain, source, old_rel)
        target = posixpath.relpath(new_rel, folder or ".") if relative else new_rel
        edits.append((m.start(2), m.end(2), f"<{target}{hash_}{sub}>" if angle else quote(target, safe="/-._~") + hash_ + sub))
    out = text
    for start, end, replacement in sorted(edits, reverse=True):
        out = out[:start] + replacement + out[end:]
    return out, len(edits)


def _resolves_relative(path: str, source: str, old_rel: str) -> bool:
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    return joined.lower() == old_rel.lower()


def rewrite_links(svc: "MemoryService", resolver: Resolver, old_rel: str, new_rel: str) -> list[str]:
    """Rewrite links to `old_rel` everywhere (resolver built before the move); returns changed paths."""
    name = old_rel.rsplit("/", 1)[-1]
    name = (name[:-3] if name.lower().endswith(".md") else name).lower()
    sources = queries.sources_linking(svc.store, name)
    changed = []
    for src in sources:
        if src == old_rel:
            continue
        path = svc.layout.abs(src)
        try:
            data = path.read_bytes()
        except OSError:
            continue

        def transform(current: bytes, src=src) -> bytes | None:
            bom = current.startswith(BOM_BYTES)
            try:
                text = (current[3:] if bom else current).decode("utf-8")
            except UnicodeDecodeError:
                return None
            new, n = rewrite_text(text, src, resolver, old_rel, new_rel)
            if not n:
                return None
            return (BOM_BYTES if bom else b"") + new.encode("utf-8")

        try:
            if update_file(path, data, transform).written:
                changed.append(src)
        except (MnemovaultError, OSError):
            continue  # the note vanished or keeps changing: the person is editing it; leave it
    return changed
