"""Rewriting links when a note moves, so that no link changes target.

Every link whose name matches the moved note is resolved before and after the move; where
the two differ, it is rewritten to the note it meant: a wikilink by the shortest target no
note reads as another (the bare name when no other note has it, else the shortest unique end
of its path; a link written with a folder keeps one), a Markdown link by its path.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import quote, unquote

from ..engine import Engine
from ..edit import edit_text
from ..errors import MnemovaultError
from ..index import queries
from ..index.resolver import Resolver
from ..codeblocks import code_lines
from ..links import MDLINK, SCHEME, WIKILINK, _strip_inline_code, strip_md


def _masked(text: str) -> str:
    """`text` with code (fences, indented blocks, inline code) blanked, positions kept."""
    if "`" not in text and "~~~" not in text and "    " not in text and "\t" not in text:
        return text
    lines = text.split("\n")
    for start, end in code_lines(text):
        for i in range(start, min(end, len(lines))):
            lines[i] = " " * len(lines[i])
    out = "\n".join(lines)
    return _strip_inline_code(out) if "`" in out else out


def rewrite_text(text: str, source: str, resolver: Resolver, old_rel: str, new_rel: str,
                 after: Resolver | None = None, was: str | None = None) -> tuple[str, int]:
    """`text` with every link whose target the move of `old_rel` to `new_rel` would change
    re-pointed at the note it meant before: links to the moved note follow it, and a link
    to another note that now would resolve to the moved one (a shared name) gets that
    note's path. `resolver` is the vault before the move, `after` the vault after it; `was` is
    where the text sat before the move (the moved note's own links), else `source`."""
    was = was or source
    masked = _masked(text)
    after = after or resolver.changed(added=new_rel, removed=old_rel)
    folder = posixpath.dirname(source)
    edits: list[tuple[int, int, str]] = []
    for m in WIKILINK.finditer(masked):
        inner = text[m.start(1):m.end(1)]
        parts = re.match(r"([^#|]*?)(\\?)([#|].*)?$", inner, re.S)
        if parts is None:
            continue
        target, escape, rest = parts.group(1), parts.group(2), parts.group(3) or ""
        want = _moved(resolver.resolve(target.strip(), was), old_rel, new_rel)
        if want is None or after.resolve(target.strip(), source) == want:
            continue
        # the shortest form no note reads as another, keeping a folder if one was written
        short = after.shortest_target(want, 2 if "/" in target.strip().strip("/") else 1)
        stem = short if after.resolve(short, source) == want else strip_md(want)
        ext = ".md" if target.strip().lower().endswith(".md") and want != stem else ""
        edits.append((m.start(1), m.end(1), f"{stem}{ext}{escape}{rest}"))
    for m in MDLINK.finditer(masked):
        url = text[m.start(2):m.end(2)]
        angle = url.startswith("<")
        path, hash_, sub = (url[1:-1] if angle else url).partition("#")
        plain = unquote(path)
        if not plain or SCHEME.match(path):
            continue
        want = _moved(resolver.resolve(plain, was, markdown=True), old_rel, new_rel)
        if want is None or after.resolve(plain, source, markdown=True) == want:
            continue
        relative = plain.startswith(("./", "../")) or bool(posixpath.dirname(was)) and _resolves_relative(plain, was, resolver)
        forms = [posixpath.relpath(want, folder or "."), want]  # relative first if it was written so
        if not relative:
            forms.reverse()
        if not plain.lower().endswith(".md"):  # written without the extension: keep it that way
            forms = [strip_md(f) for f in forms]
        # a vault path that a note beside the source would capture is written relative instead
        target = next((f for f in forms if after.resolve(f, source, markdown=True) == want), forms[0])
        edits.append((m.start(2), m.end(2), f"<{target}{hash_}{sub}>" if angle else quote(target, safe="/-._~") + hash_ + sub))
    out = text
    for start, end, replacement in sorted(edits, reverse=True):
        out = out[:start] + replacement + out[end:]
    return out, len(edits)


def _moved(hit: str | None, old_rel: str, new_rel: str) -> str | None:
    return new_rel if hit == old_rel else hit


def _resolves_relative(path: str, source: str, resolver: Resolver) -> bool:
    """True when the link was written relative to its note's folder (not from the vault root)."""
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    hit = resolver.resolve("/" + joined, "")  # from the vault root
    return hit is not None and hit == resolver.resolve(path, source, markdown=True)


def rewrite_links(engine: Engine, resolver: Resolver, old_rel: str, new_rel: str) -> list[str]:
    """Rewrite links to `old_rel` everywhere (resolver built before the move), each note
    through the write path (re-indexed there, or with the move inside `writes.together`);
    returns changed paths."""
    name = strip_md(old_rel.rsplit("/", 1)[-1]).lower()
    sources = queries.sources_linking(engine.store, name)
    after = resolver.changed(added=new_rel, removed=old_rel)
    changed = []
    # the moved note's own links too: they were read from its old folder
    for src, was in [*((s, s) for s in sources if s not in (old_rel, new_rel)), (new_rel, old_rel)]:
        def transform(current: bytes, src: str = src, was: str = was) -> bytes | None:
            def rewrite(text: str) -> str | None:
                new, n = rewrite_text(text, src, resolver, old_rel, new_rel, after, was)
                return new if n else None

            try:
                return edit_text(current, rewrite)
            except UnicodeDecodeError:
                return None  # not text: no link to rewrite

        try:  # compare-and-swap through the write path: a person's edit meanwhile is kept
            if engine.writes.update(src, transform).written:
                changed.append(src)
        except (MnemovaultError, OSError):
            continue  # the note vanished or keeps changing: the person is editing it; leave it
    return changed
