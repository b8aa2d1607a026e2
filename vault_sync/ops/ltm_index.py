"""What a promotion adds besides the move, shared by promote and the crash recovery of a move:
the '## Related' section of the promoted note and its entry in the LTM index note."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import quote

from ..dates import format_datetime
from ..edit import newline_of
from ..engine import Engine
from ..errors import MnemovaultError
from ..index.resolver import Resolver, build_resolver
from ..links import extract, strip_md
from ..vault import LTM_INDEX_NAME
from .linkrewrite import _masked

STATUS_FOR_FOLDER = {"ltm": "promoted", "archive": "archived", "stm": "active"}
INDEX_NOTE = LTM_INDEX_NAME
# characters a wikilink cannot carry in its target (Internal links help page: # | ^ : %% [[ ]])
_NOT_IN_WIKILINK = re.compile(r"[|#^\[\]]|%%")


def wikilink_safe(name: str) -> bool:
    return _NOT_IN_WIKILINK.search(name) is None


def link_markup(target: str) -> str:
    """A link to the note `target` (a name or a vault path, without .md) that resolves whatever
    the file is called: [[target]] where Obsidian can read it, else a URL-encoded Markdown link."""
    if wikilink_safe(target):
        return f"[[{target}]]"
    shown = target.rsplit("/", 1)[-1].replace("[", "(").replace("]", ")")
    return f"[{shown}]({quote(target + '.md', safe='/-._~')})"


def link_to(resolver: Resolver, path: str) -> str:
    """Markup for a link to the note at `path` that no note in the vault reads as another:
    the shortest unambiguous wikilink, else a Markdown link with the whole path."""
    target = resolver.shortest_target(path)
    return f"[[{target}]]" if wikilink_safe(target) else link_markup(strip_md(path))


def resolver_with(engine: Engine, paths: list[str]) -> Resolver:
    """The vault's resolver, with `paths` in it even before they are indexed."""
    resolver = build_resolver(engine.store)
    missing = [p for p in paths if not resolver.has(p)]
    if not missing:
        return resolver
    return Resolver(resolver.note_paths() + missing, resolver.file_paths())


def with_related(text: str, names: list[str]) -> str:
    """The note's text with a '## Related' section listing links to `names` (merged if present);
    a heading inside code is not the section."""
    if not names:
        return text
    nl = newline_of(text)
    masked = _masked(text)
    m = re.search(r"^## Related[ \t]*\r?$", masked, re.M)
    if m:
        section_end = re.search(r"^#{1,2} ", masked[m.end() :], re.M)
        end = m.end() + section_end.start() if section_end else len(text)
        section = text[m.end() : end]
        have = {link.target.strip().lower() for link in extract(section)[0]}
        new = [n for n in names if n.lower() not in have]
        if not new:
            return text
        addition = "".join(f"- {link_markup(n)}{nl}" for n in new)
        body = section.rstrip("\r\n") + nl + addition
        return text[: m.end()] + body + (nl if section_end else "") + text[end:]
    lead = "" if text.endswith(nl + nl) else (nl if text.endswith(nl) else nl + nl)
    return text + lead + f"## Related{nl}{nl}" + "".join(f"- {link_markup(n)}{nl}" for n in names)


def add_to_index_note(engine: Engine, note: str, now: datetime) -> None:
    add_many_to_index_note(engine, [(note, now)])


def add_many_to_index_note(engine: Engine, entries: list[tuple[str, datetime]]) -> None:
    """One line per (note path, promoted at) in the LTM index note, in one write (an import
    brings many long-term memories at once). Each links by the shortest form no other note
    shares; an entry that is a bare name (a journal of an older version) links by it."""
    if not entries:
        return
    rel = f"{engine.layout.ltm}/{INDEX_NOTE}.md"
    path = engine.layout.abs(rel)
    resolver = resolver_with(engine, [n for n, _ in entries if n.lower().endswith(".md")])
    links = [link_to(resolver, n) if n.lower().endswith(".md") else link_markup(n) for n, _ in entries]
    lines = [(link, f"- {link} (promoted {format_datetime(at)[:10]})") for link, (_, at) in zip(links, entries)]
    if not path.exists():
        text = f"# {INDEX_NOTE}\n\nLong-term memories, newest last.\n\n" + "".join(line + "\n" for _, line in lines)
        try:
            engine.writes.create(rel, text.encode("utf-8"))
            return
        except FileExistsError:
            pass

    def transform(current: bytes) -> bytes | None:
        text = current.decode("utf-8", errors="strict")
        new = [line for link, line in lines if link not in text]
        if not new:
            return None
        nl = newline_of(text)
        return (text + ("" if text.endswith(nl) or not text else nl) + "".join(line + nl for line in new)).encode(
            "utf-8"
        )

    try:
        engine.writes.update(rel, transform)
    except (UnicodeDecodeError, OSError, MnemovaultError):
        return  # the index note is a convenience: never fail a promotion over it
