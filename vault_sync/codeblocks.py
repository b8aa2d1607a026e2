"""Which lines of a note are code blocks (fenced or indented), as CommonMark says.

A full markdown-it parse costs milliseconds a note, most of the cold index on a vault where
notes hold code. This scanner follows the block rules itself for what most notes are made
of (paragraphs, headings, rules, fences, indented code) and hands markdown-it only the
stretches it does not follow (block quotes, lists, HTML blocks, link definitions), each cut
where every block is known to be closed, so the answer is the full parse's answer.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_LIST = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
MAX_DEPTH = 8  # quotes and lists nested deeper go to markdown-it (it stops nesting at 20 levels)
_QUOTE = re.compile(r" {0,3}> ?")
_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)]) {1,4}(?=[^ ])")  # a list item with text on its line
# an indented line can only be code after a blank line, a heading or a rule (not inside a
# paragraph or a list, where Obsidian's tab-indented sub-items are the common case). These
# patterns only rule notes out, so they may match more than CommonMark would (the block scan
# then decides), and they are written so that no two parts can share a character: a quote or
# list mark with its blanks once had three ways to split " > > ", and a line of 20 "- " took
# seconds to refuse.
_INDENTED = r"(?: {4}| {0,3}\t)"  # 4 columns
_MARK = r"(?:[>*+-]|\d{1,9}[.)])"  # a quote or list marker
_MARKS = r"(?:[ \t]|" + _MARK + ")*"  # containers: their marks and blanks
# a blank line, a heading, a rule, an empty quote or list item, then a line of containers
# (maybe none) and indented text
_AFTER_BLANK = r"[ \t>*+\-_=\d.)]*(?:#[^\n]*)?\r?\n" + _MARKS + _INDENTED
# each pattern comes twice: matched at the text's start, and searched from a newline (a
# pattern opening with a literal is searched far faster than one opening with `\A|\n`)
_INDENTED_AT_START = re.compile(_MARKS + _INDENTED + "|" + _AFTER_BLANK)
_INDENTED_AFTER_NEWLINE = re.compile(r"\n(?:[ \t]*" + _MARK + _MARKS + _INDENTED + "|" + _AFTER_BLANK + ")")
_RAW_HTML = re.compile(r"<(?:script|pre|style|textarea)", re.IGNORECASE)
_QUOTE_AT_START = re.compile(r"[ ]{0,3}>")
_QUOTE_LINE = re.compile(r"\n[ ]{0,3}>")
_WIDE_ITEM_AT_START = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+")
_WIDE_ITEM = re.compile(r"\n {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+")  # its width: the match less its newline
# first characters of a line that may open or end a block other than a paragraph (or be blank)
_MAY_OPEN = frozenset(" \t`~><[-+*_=#0123456789") | {""}


@lru_cache(maxsize=1)
def block_parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.disable("inline")  # only where code blocks are
    return md


def parsed_code_lines(text: str) -> list[tuple[int, int]]:
    """[start, end) line ranges of code blocks by markdown-it's full parse."""
    return [(t.map[0], t.map[1]) for t in block_parser().parse(text) if t.type in ("fence", "code_block") and t.map]


def maybe_indented_code(text: str) -> bool:
    """False only when the text surely has no indented code block (most notes: no markdown-it)."""
    if "    " not in text and "\t" not in text:
        return False
    if _QUOTE_AT_START.match(text) or _QUOTE_LINE.search(text) or "]:" in text:
        return True  # lazy lines in block quotes, and what a link definition ends, are subtle
    if _may_run_on(text):
        return True  # an HTML block ending at a marker (not a blank line): the next line may be code
    first = _WIDE_ITEM_AT_START.match(text)
    if first and first.end() >= 5 or any(m.end() - m.start() >= 6 for m in _WIDE_ITEM.finditer(text)):
        return True  # a line less indented than such an item's text may close it and be code
    return _INDENTED_AT_START.match(text) is not None or _INDENTED_AFTER_NEWLINE.search(text) is not None


@lru_cache(maxsize=64)
def _closer(char: str, length: int) -> re.Pattern[str]:
    """A line closing a fence of `length` `char`s: up to 3 spaces, as many or more, then blanks."""
    return re.compile(" {0,3}" + re.escape(char) + "{" + str(length) + r",}[ \t]*$")


def _indent(line: str) -> tuple[int, int]:
    """(columns of leading space, tabs to 4, and index of the first other character)."""
    col = 0
    for i, ch in enumerate(line):
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            return col, i
    return col, len(line)


def code_lines(text: str, lines: list[str] | None = None) -> list[tuple[int, int]]:
    """[start, end) line ranges of fenced and indented code blocks, the same as
    `parsed_code_lines` but with markdown-it run only on the stretches that need it.
    `lines`: `text.split("\n")` when the caller has it already (it is not changed)."""
    if "\r" in text and "\r" in text.replace("\r\n", "\n"):
        return parsed_code_lines(text)  # a lone CR breaks lines for markdown-it, not here
    if lines is None:
        lines = text.split("\n")
    if "\r" in text:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if not lines[-1].strip(" \t"):
        lines = lines[:-1]  # markdown-it counts no last line of only spaces (or none, after a final newline)
    return _scan(lines, "]:" in text, text.endswith("\n"))


def _scan(lines: list[str], refs: bool, closed: bool = True, depth: int = 0) -> list[tuple[int, int]]:
    """`code_lines` of a document's lines (a quote's or a list item's content included);
    `closed`: its last line ends with a newline."""
    out: list[tuple[int, int]] = []
    n = len(lines)
    i = 0
    para = -1  # first line of the open paragraph, -1 if none
    while i < n:
        line = lines[i]
        if line[:1] not in _MAY_OPEN:  # text at the margin: a paragraph's line, most lines are
            if para < 0:
                para = i
            i += 1
            continue
        first = line[:1]
        if first == " " or first == "\t":
            col, at = _indent(line)
            rest = line[at:]
            if not rest:
                para, i = -1, i + 1
                continue
        elif not line:  # a blank line
            para, i = -1, i + 1
            continue
        else:  # no indent: most lines that reach here (a list item, a heading, a fence)
            col, rest = 0, line
        if col >= 4:
            if para < 0:  # indented code: up to the next line indented less (blank lines inside)
                j = k = i + 1
                while j < n:
                    c, a = _indent(lines[j])
                    if a < len(lines[j]):
                        if c < 4:
                            break
                        k = j + 1
                    j += 1
                out.append((i, k))
                i = k
            else:
                i += 1
            continue
        fence = _FENCE.match(rest)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            closes = _closer(fence.group(1)[0], len(fence.group(1))).match
            j = i + 1
            while j < n:
                j += 1
                if closes(lines[j - 1]):
                    break
            out.append((i, j))
            para, i = -1, j
            continue
        first = rest[0]
        if (
            first == ">"
            or first == "<"
            or (first == "[" and para < 0 and refs and not rest.startswith("[["))
            or (_LIST.match(rest) and not _RULE.match(rest))
        ):
            start = para if para >= 0 else i
            i = _hand_over(lines, start, i, out, closed, depth)
            para = -1
            continue
        if _ATX.match(rest) or _RULE.match(rest) or (para >= 0 and _SETEXT.match(rest)):
            para, i = -1, i + 1
            continue
        if para < 0:
            para = i
        i += 1
    return out


def _hand_over(lines: list[str], start: int, at: int, out: list[tuple[int, int]], closed: bool, depth: int) -> int:
    """Parse lines from `start` with markdown-it up to the first line where every block is
    closed (a blank line, then a line at the margin that opens no quote or list); add its
    code ranges to `out`; return where the scan goes on."""
    n = len(lines)
    end = at + 1
    while end < n:
        line = lines[end]
        if (
            line[:1] not in ("", " ", "\t", ">")
            and not lines[end - 1].strip(" \t")
            and not (_LIST.match(line) and not _RULE.match(line))
        ):
            break
        end += 1
    if start < at and _interrupts(lines[at]):
        start = at  # the paragraph before is closed by it and holds no code: read from here
    chunk = "\n".join(lines[start:end]) + ("\n" if end < n or closed else "")
    fences = "```" in chunk or "~~~" in chunk
    if not (fences or maybe_indented_code(chunk) or (end < n and _may_run_on(chunk))):
        return end  # no code can start in it, and no HTML block can run past the cut
    if (
        start == at and "\t" not in chunk and depth < MAX_DEPTH
    ):  # (a quote ending the text without a newline: markdown-it's)
        inner = (
            _list_items(lines, start, end, depth + 1, end < n or closed)
            if _ITEM.match(lines[start])
            else _quotes(lines, start, end, depth + 1)
            if _QUOTE.match(lines[start]) and (end < n or closed)
            else None
        )
        if inner is not None:
            out.extend(inner)
            return end
    tokens = block_parser().parse(chunk)
    if end < n and any(t.type in ("fence", "html_block") and t.map and t.map[1] >= end - start for t in tokens):
        # a fence or an HTML block still open at the cut goes on past it: parse to the end
        end = n
        tokens = block_parser().parse("\n".join(lines[start:]) + ("\n" if closed else ""))
    out.extend((t.map[0] + start, t.map[1] + start) for t in tokens if t.type in ("fence", "code_block") and t.map)
    return end


def _may_run_on(chunk: str) -> bool:
    """Whether an HTML block may open in `chunk` that a blank line does not close (a comment,
    a processing instruction, a declaration, CDATA, or a script, pre, style or textarea
    element): only those go on past the cut."""
    return "<" in chunk and ("<!" in chunk or "<?" in chunk or _RAW_HTML.search(chunk) is not None)


def _interrupts(line: str) -> bool:
    """A line at the margin that closes an open paragraph: a block quote, or a list item with
    text whose list is bulleted or starts at 1 (other ordered items continue the paragraph)."""
    mark = line.lstrip(" ")
    if mark[:1] == ">":
        return True
    item = _ITEM.match(line)
    return (
        item is not None
        and line[item.end() :].strip(" \t") != ""
        and mark[0] in "-+*1"
        and (mark[0] != "1" or mark[1] in ".)")
        and not _RULE.match(mark)
    )


def _list_items(lines: list[str], start: int, end: int, depth: int, closed: bool) -> list[tuple[int, int]] | None:
    """Code ranges of a list, each item's content (its lines less the item's indent) scanned
    as a document of its own, and of block quotes after it; None when a line is not plainly
    inside an item (a lazy line, a rule, an empty item), which markdown-it then reads.
    `closed`: line `end - 1` ends with a newline."""
    out: list[tuple[int, int]] = []
    i = start
    while i < end:
        item = None if _RULE.match(lines[i].lstrip(" ")) else _ITEM.match(lines[i])
        if item is None:
            if i > start and not lines[i - 1].strip(" ") and _QUOTE.match(lines[i]) and closed:
                # less indented than the item's text after a blank line: the list is closed
                quotes = _quotes(lines, i, end, depth)
                return None if quotes is None else out + quotes
            return None
        width = item.end()
        sub = [lines[i][width:]]
        j = i + 1
        while j < end:
            line = lines[j]
            if not line.strip(" "):
                sub.append("")
            elif len(line) - len(line.lstrip(" ")) >= width:
                sub.append(line[width:])
            else:
                break
            j += 1
        out.extend((a + i, b + i) for a, b in _scan(sub, _refs(sub), True, depth))
        i = j
    return out


def _refs(sub: list[str]) -> bool:
    """Whether a link reference definition may be among these lines (its label ends "]:")."""
    return any("]:" in line for line in sub)


def _quotes(lines: list[str], start: int, end: int, depth: int) -> list[tuple[int, int]] | None:
    """Code ranges of block quotes (a blank line ends one), each one's lines less their
    marks scanned as a document of its own; None when a line lacks its mark (a lazy line)."""
    out: list[tuple[int, int]] = []
    i = start
    while i < end:
        if not lines[i].strip(" "):
            i += 1
            continue
        sub: list[str] = []
        j = i
        while j < end and lines[j].strip(" "):
            mark = _QUOTE.match(lines[j])
            if mark is None:
                return None
            sub.append(lines[j][mark.end() :])
            j += 1
        out.extend((a + i, b + i) for a, b in _scan(sub, _refs(sub), True, depth))
        i = j
    return out
