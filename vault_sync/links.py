"""Wikilinks, embeds, Markdown links and inline #tags, ignoring code.

Most notes have no code at all; for those a regex pass over the text is exact. In notes with
fences, inline code or indented blocks, code blocks are found by the CommonMark block rules
(codeblocks.py) and code spans by backtick runs, so only text outside code is scanned.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import NamedTuple
from urllib.parse import unquote

from .codeblocks import code_lines, maybe_indented_code
from .mdlinks import first_h1, md_links

# no optional '!' in front: a pattern starting with a literal is searched much faster (the
# engine skips ahead to each '[['); the embed mark is read from the character before the match
WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
TAG = re.compile(r"#([\w/-]+)")
BACKTICKS = re.compile(r"``*")  # `+, spelled to open with a literal: searched far faster
# a code span of single backticks: no blank line inside (a paragraph's end closes nothing)
SINGLE_SPAN = re.compile(r"`(?:[^`\n]|\n(?![ \t]*\r?\n))*`")
BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")
_NUMERIC = re.compile(r"[\d/]+")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class Link(NamedTuple):  # a tuple: built ~4x faster than a frozen dataclass (a vault has 10^5 of them)
    target: str  # note part as written: "name", "folder/name", "" for a link to a heading in the same note
    subpath: str  # "" or "#Heading" or "#^block"
    alias: str  # display text, "" if none
    kind: str  # link | embed | heading | block
    markdown: bool  # [text](url) form rather than [[...]]


def _kind(embed: bool, subpath: str) -> str:
    if embed:
        return "embed"
    if subpath.startswith("#^"):
        return "block"
    if subpath:
        return "heading"
    return "link"


def strip_code(text: str) -> str:
    """Text with code blocks and inline code blanked out (line count kept)."""
    out = text
    # a code block is a fence (three backticks or tildes) or indented: with neither (most
    # notes with code spans), no block scan
    if "```" in text or "~~~" in text or maybe_indented_code(text):
        lines = text.split("\n")
        n = len(lines)
        ranges = code_lines(text, lines)
        for start, end in ranges:
            end = min(end, n)
            if end > start:
                lines[start:end] = [""] * (end - start)
        if ranges:
            out = "\n".join(lines)
    return _strip_inline_code(out) if "`" in out else out


def _strip_inline_code(text: str) -> str:
    """Code spans blanked: a run of n backticks up to the next run of exactly n in the same
    paragraph (CommonMark); an unmatched run is plain text. Linear, whatever the input."""
    if "``" not in text:  # single backticks only (most notes): each to the next, one regex pass
        return SINGLE_SPAN.sub(_blank, text)
    return _strip_code_spans(text)


def _blank(m: re.Match[str]) -> str:
    span = m.group()
    return re.sub(r"[^\n]", " ", span) if "\n" in span else " " * len(span)


def _strip_code_spans(text: str) -> str:
    """`_strip_inline_code` for runs of any length."""
    runs = [m.span() for m in BACKTICKS.finditer(text)]
    by_len: dict[int, list[int]] = {}
    for idx, (a, b) in enumerate(runs):
        by_len.setdefault(b - a, []).append(idx)
    breaks = [m.start() for m in BLANK_LINE.finditer(text)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        a, b = runs[i]
        same = by_len[b - a]
        k = bisect_left(same, i + 1)
        if k < len(same):
            j = same[k]
            c, d = runs[j]
            p = bisect_left(breaks, b)
            if p >= len(breaks) or breaks[p] >= c:  # no blank line in between
                spans.append((a, d))
                i = j + 1
                continue
        i += 1
    if not spans:
        return text
    parts, pos = [], 0
    for a, d in spans:
        parts.append(text[pos:a])
        span = text[a:d]
        parts.append(re.sub(r"[^\n]", " ", span) if "\n" in span else " " * len(span))
        pos = d
    parts.append(text[pos:])
    return "".join(parts)


def strip_md(name: str) -> str:
    """`name` without a trailing `.md` (any case): the one place a note's name loses it."""
    return name[:-3] if name[-3:].lower() == ".md" else name


def parse_wikilink(inner: str, embed: bool) -> Link | None:
    target, _, alias = inner.partition("|")
    name, hash_, sub = target.partition("#")
    name = strip_md(name.rstrip("\\").strip())  # [[a\|b]] inside a table
    sub = sub.rstrip("\\")
    subpath = ("#" + sub.strip()) if hash_ else ""
    if not name and not subpath:
        return None
    return Link(name, subpath, alias.strip(), _kind(embed, subpath), False)


def _parse_mdlink(url: str, text: str, embed: bool) -> Link | None:
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    if SCHEME.match(url) or url.startswith("#") and len(url) == 1:
        return None
    path, hash_, sub = url.partition("#")
    path = unquote(path)  # with or without .md; any other extension names an attachment
    subpath = ("#" + unquote(sub)) if hash_ else ""
    path = strip_md(path)
    if not path and not subpath:
        return None
    return Link(path, subpath, text, _kind(embed, subpath), True)


def extract(body: str) -> tuple[list[Link], list[str], str | None]:
    """(links, inline tags, first H1) of a note body."""
    return extract_outside_code(strip_code(body))


def extract_outside_code(text: str) -> tuple[list[Link], list[str], str | None]:
    """`extract` of a text whose code is already blanked."""
    links: list[Link] = []
    hidden: list[tuple[int, int]] = []  # link spans, where a '#' is not a tag
    if "[[" in text:
        add, hide = links.append, hidden.append
        for m in WIKILINK.finditer(text):
            start = m.start()
            hide(m.span())
            # parse_wikilink inlined: a vault has ten links a note
            target, _, alias = m.group(1).partition("|")
            name, hash_, sub = target.partition("#")
            name = name.rstrip("\\").strip()
            if name[-3:].lower() == ".md":
                name = name[:-3]
            if hash_:
                subpath = "#" + sub.rstrip("\\").strip()
                kind = "block" if subpath.startswith("#^") else "heading"
            elif name:
                subpath, kind = "", "link"
            else:
                continue
            if start and text[start - 1] == "!":
                kind = "embed"
            add(Link(name, subpath, alias.strip(), kind, False))
    if "](" in text:
        for start, label_end, url_start, url_end, end in md_links(text):
            embed = start > 0 and text[start - 1] == "!"
            hidden.append((url_start, end))
            link = _parse_mdlink(text[url_start:url_end], text[start + 1 : label_end], embed)
            if link:
                links.append(link)
    if "#" not in text:
        return links, [], None
    tags: list[str] = []
    hidden.sort()
    starts = [a for a, _ in hidden]
    for m in TAG.finditer(text):
        at = m.start()
        if at and not text[at - 1].isspace() and text[at - 1] != "(":
            continue  # a URL fragment, a heading's closing '#', "C#", "a#b"
        k = bisect_left(starts, at + 1) - 1
        if k >= 0 and hidden[k][1] > at:
            continue  # inside a link
        tag = m.group(1).strip("/")
        if tag and not _NUMERIC.fullmatch(tag):
            tags.append(tag)
    return links, tags, first_h1(text)
