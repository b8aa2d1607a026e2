"""Rewriting links when a note moves, so that no link changes target.

Every link whose name matches the moved note is resolved before and after the move; where
the two differ, it is rewritten to the note it meant: a wikilink by the shortest target no
note reads as another (the bare name when no other note has it, else the shortest unique end
of its path; a link written with a folder keeps one), a Markdown link by its path; a path
from the vault root stays rooted. A link a previous move rewrote gets its written form back
when that form means the note again (linkforms.py: a move undone restores every link).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from urllib.parse import quote, unquote

from ..codeblocks import code_lines
from ..edit import edit_text
from ..engine import Engine
from ..errors import MnemovaultError
from ..index import queries
from ..index.resolver import Resolver, link_names
from ..linkforms import LinkForms
from ..links import SCHEME, WIKILINK, _strip_inline_code, strip_md
from ..mdlinks import md_links


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


def rewrite_text(
    text: str,
    source: str,
    resolver: Resolver,
    old_rel: str,
    new_rel: str,
    after: Resolver | None = None,
    was: str | None = None,
    forms: LinkForms | None = None,
) -> tuple[str, int]:
    """`text` with every link whose target the move of `old_rel` to `new_rel` would change
    re-pointed at the note it meant before: links to the moved note follow it, and a link
    to another note that now would resolve to the moved one (a shared name) gets that
    note's path. `resolver` is the vault before the move, `after` the vault after it; `was` is
    where the text sat before the move (the moved note's own links), else `source`; `forms`
    remembers each link's form before the engine rewrote it, and writes it back when it
    means the note again (a move undone)."""
    was = was or source
    masked = _masked(text)
    after = after or resolver.changed(added=new_rel, removed=old_rel)
    folder = posixpath.dirname(source)
    edits: list[tuple[int, int, str]] = []
    seen: Counter[str] = Counter()  # links written alike so far: which of them a remembered form is for
    for m in WIKILINK.finditer(masked):
        inner = text[m.start(1) : m.end(1)]
        parts = re.match(r"([^#|]*?)(\\?)([#|].*)?$", inner, re.S)
        if parts is None:
            continue
        target, escape, rest = parts.group(1), parts.group(2), parts.group(3) or ""
        key = "[[" + target
        nth = seen[key]
        seen[key] += 1
        want = _moved(resolver.resolve(target.strip(), was), old_rel, new_rel)
        # a form an earlier move replaced, meaning this note again: written back, also where
        # the current form would still do (a move undone)
        first = forms.original(was, key, nth) if forms and want else None
        if forms and first is not None and after.resolve(first.strip(), source) == want:
            forms.saw(key, nth, "[[" + first, "restored")
            edits.append((m.start(1), m.end(1), f"{first}{escape}{rest}"))
            continue
        if want is None or after.resolve(target.strip(), source) == want:
            if forms:
                forms.saw(key, nth, key)
            continue
        # the shortest form no note reads as another, keeping a folder if one was written
        short = after.shortest_target(want, 2 if "/" in target.strip().strip("/") else 1)
        stem = short if after.resolve(short, source) == want else strip_md(want)
        if target.strip().startswith("/"):  # written from the vault root: it stays so
            stem = "/" + strip_md(want)
        ext = ".md" if target.strip().lower().endswith(".md") and want != stem else ""
        if forms:
            forms.saw(key, nth, f"[[{stem}{ext}", "rewrote", target)
        edits.append((m.start(1), m.end(1), f"{stem}{ext}{escape}{rest}"))
    for _, _, url_start, url_end, _ in md_links(masked):
        url = text[url_start:url_end]
        angle = url.startswith("<")
        path, hash_, sub = (url[1:-1] if angle else url).partition("#")
        plain = unquote(path)
        if not plain or SCHEME.match(path):
            continue
        key = "](" + path
        nth = seen[key]
        seen[key] += 1
        want = _moved(resolver.resolve(plain, was, markdown=True), old_rel, new_rel)
        first = forms.original(was, key, nth) if forms and want else None
        if forms and first is not None and after.resolve(unquote(first), source, markdown=True) == want:
            forms.saw(key, nth, "](" + first, "restored")
            edits.append((url_start, url_end, f"<{first}{hash_}{sub}>" if angle else first + hash_ + sub))
            continue
        if want is None or after.resolve(plain, source, markdown=True) == want:
            if forms:
                forms.saw(key, nth, key)
            continue
        rooted = plain.startswith("/")  # written from the vault root: it stays so
        relative = not rooted and (
            plain.startswith(("./", "../")) or bool(posixpath.dirname(was)) and _resolves_relative(plain, was, resolver)
        )
        paths = [posixpath.relpath(want, folder or "."), want]  # relative first if it was written so
        if not relative:
            paths.reverse()
        if rooted:
            paths = ["/" + want]
        if not plain.lower().endswith(".md"):  # written without the extension: keep it that way
            paths = [strip_md(f) for f in paths]
        # a vault path that a note beside the source would capture is written relative instead
        target = next((f for f in paths if after.resolve(f, source, markdown=True) == want), paths[0])
        written = target if angle else quote(target, safe="/-._~")
        if forms:
            forms.saw(key, nth, "](" + written, "rewrote", path)
        edits.append((url_start, url_end, f"<{written}{hash_}{sub}>" if angle else written + hash_ + sub))
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
    sources = queries.sources_linking(engine.store, link_names(strip_md(old_rel.rsplit("/", 1)[-1])))
    after = resolver.changed(added=new_rel, removed=old_rel)
    forms = LinkForms(engine.layout.root)
    changed = []
    # the moved note's own links too: they were read from its old folder
    for src, was in [*((s, s) for s in sources if s not in (old_rel, new_rel)), (new_rel, old_rel)]:

        def transform(current: bytes, src: str = src, was: str = was) -> bytes | None:
            def rewrite(text: str) -> str | None:
                forms.pending = []  # a retry (a person's edit meanwhile) stages its own
                new, n = rewrite_text(text, src, resolver, old_rel, new_rel, after, was, forms)
                return new if n else None

            try:
                return edit_text(current, rewrite)
            except UnicodeDecodeError:
                return None  # not text: no link to rewrite

        try:  # compare-and-swap through the write path: a person's edit meanwhile is kept
            if engine.writes.update(src, transform).written:
                changed.append(src)
                forms.commit(was, src)
        except (MnemovaultError, OSError):
            continue  # the note vanished or keeps changing: the person is editing it; leave it
    forms.save()
    return changed
