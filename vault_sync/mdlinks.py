"""Markdown links `[text](url "title")` and a note's first `# heading`, found in linear time.

Both were regexes once; on a note of `[a](` repeated, each `[` scanned to the end of the
line for the url's end, so a 100 KB note took a minute. Here each scan for "the next `)` or
space" remembers its answer, and a link's tail (after its url) is read once per place, so
every character is read a few times whatever the note holds. The matches are the ones the
old regex found (tests/engine/test_parser_reference.py keeps it as the reference):

    \\[([^\\]\\n]*)\\]\\(\\s*(<[^>\\n]+>|[^)\\s]+)(?:\\s+(?:"[^"\\n]*"|'[^'\\n]*'|\\([^)\\n]*\\)))?\\s*\\)
"""

from __future__ import annotations

import re

_LABEL_END = re.compile(r"[\]\n]")
_URL_END = re.compile(r"[)\s]")
_ANGLE_END = re.compile(r"[>\n]")
_TITLE_END = {'"': re.compile(r'["\n]'), "'": re.compile(r"['\n]"), "(": re.compile(r"[)\n]")}
_TITLE_CLOSE = {'"': '"', "'": "'", "(": ")"}
_SPACES = re.compile(r"\s*")
_BLANKS = re.compile(r"[ \t]*")


def _after(pattern: re.Pattern[str], text: str, pos: int, endpos: int | None = None) -> int:
    """Where a run `pattern` (one that matches empty) read from `pos` ends."""
    m = pattern.match(text, pos) if endpos is None else pattern.match(text, pos, endpos)
    return m.end() if m else pos


class NextOf:
    """Where the next character of a set is, at or after a position (the text's length if
    none). It keeps its last answer, which holds for every position up to it: asked from
    positions that rise, it reads each character once."""

    __slots__ = ("text", "search", "lo", "hi")

    def __init__(self, text: str, pattern: re.Pattern[str]):
        self.text, self.search = text, pattern.search
        self.lo, self.hi = 1, 0

    def __call__(self, pos: int) -> int:
        if not self.lo <= pos <= self.hi:
            m = self.search(self.text, pos)
            self.lo, self.hi = pos, (m.start() if m else len(self.text))
        return self.hi


def md_links(text: str) -> list[tuple[int, int, int, int, int]]:
    """(start, label end, url start, url end, end) of each Markdown link, left to right, not
    overlapping: the text is `text[start + 1 : label end]`, the url `text[url start : url end]`
    (with its angle brackets, if written so)."""
    n = len(text)
    label_end = NextOf(text, _LABEL_END)
    url_end = NextOf(text, _URL_END)
    angle_end = NextOf(text, _ANGLE_END)
    title_end = {c: NextOf(text, p) for c, p in _TITLE_END.items()}
    tails: dict[int, int] = {}  # where a url ends -> where its link ends, -1 if it does not close
    dests: dict[int, tuple[int, int, int] | None] = {}  # a label's ']' -> (url start, url end, end)

    def tail(at: int) -> int:
        """End of `(?:\\s+title)?\\s*\\)` read from `at`, -1 when it does not match."""
        got = tails.get(at)
        if got is not None:
            return got
        got = -1
        w = _after(_SPACES, text, at)
        if w > at and w < n and text[w] in _TITLE_CLOSE:
            close = title_end[text[w]](w + 1)
            if close < n and text[close] == _TITLE_CLOSE[text[w]]:
                after = _after(_SPACES, text, close + 1)
                if after < n and text[after] == ")":
                    got = after + 1
        if got < 0 and w < n and text[w] == ")":
            got = w + 1
        tails[at] = got
        return got

    def dest(j: int) -> tuple[int, int, int] | None:
        """The url and end of a link whose label ends at `j` (`](` there)."""
        u = _after(_SPACES, text, j + 2)
        if u >= n:
            return None
        if text[u] == "<":
            close = angle_end(u + 1)
            if close > u + 1 and close < n and text[close] == ">":
                end = tail(close + 1)
                if end >= 0:
                    return u, close + 1, end
        stop = url_end(u)
        if stop > u:
            end = tail(stop)
            if end >= 0:
                return u, stop, end
        return None

    out: list[tuple[int, int, int, int, int]] = []
    pos = 0
    while True:
        start = text.find("[", pos)
        if start < 0:
            return out
        j = label_end(start + 1)
        if j + 1 < n and text[j] == "]" and text[j + 1] == "(":
            if j not in dests:
                dests[j] = dest(j)
            found = dests[j]
            if found is not None:
                out.append((start, j, *found))
                pos = found[2]
                continue
        pos = start + 1


def first_h1(text: str) -> str | None:
    """The text of the first line `# heading` (closing #s and blanks left out), None if none."""
    pos = 0 if text.startswith("#") else text.find("\n#") + 1
    while pos > 0 or text.startswith("#"):
        title = _h1_at(text, pos)
        if title is not None:
            return title
        pos = text.find("\n#", pos + 1) + 1
        if pos == 0:
            return None
    return None


def _h1_at(text: str, pos: int) -> str | None:
    """The heading on the line starting with '#' at `pos`, as the regex
    `#[ \\t]+([^\\n]+?)(?:[ \\t]+#+)?[ \\t]*\\r?(?=\\n|\\Z)` read it (group 1, stripped), which
    took time quadratic in a line's run of blanks."""
    eol = text.find("\n", pos)
    if eol < 0:
        eol = len(text)
    first = _after(_BLANKS, text, pos + 1, eol)
    blanks = first - pos - 1
    if not blanks:
        return None
    rest = text[first:eol]
    if not rest:
        return "" if blanks >= 2 else None  # "#  ": the heading is one of the blanks
    core = rest[:-1] if rest.endswith("\r") else rest
    kept = core.rstrip(" \t")
    cut = len(kept)  # before the closing blanks (and CR)
    if kept.endswith("#"):  # before a closing run of #s, if a blank comes before it
        marks = kept.rstrip("#")
        words = marks.rstrip(" \t")
        if words and len(words) < len(marks):
            cut = len(words)
    return rest[: max(cut, 1)].strip()
