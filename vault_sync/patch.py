"""Surgical frontmatter patch: set, add or remove owned keys; every other byte stays.

We edit the raw text line by line instead of dumping YAML: key order, comments, quoting,
list style, indentation, line endings and the body are the person's, not ours. Each result
is re-parsed and checked before anyone writes it.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .dates import parse_datetime
from .fmblock import BOM, UnclosedFrontmatter, YamlProblem, detect_newline, find_block, load_frontmatter, load_yaml
from .note import owned_spellings
from .scalars import render_scalar

REMOVE = object()  # an update value that deletes the key


@dataclass(frozen=True)
class Spelled:
    """An update written as `text` exactly (a one-line YAML scalar reading as `value`; None: our
    own spelling), and, when the key is added, placed before the first of `before` present: an
    undo puts back `+00:00`, `0.250` and the key's line where the note had them. `before` names
    keys, and the note's own comment and blank lines by their text (see `layout_line`)."""

    text: str | None
    value: Any
    before: tuple[str, ...] = ()


# a plain key's blanks are read with the character after them: read alone, each blank tried
# the rest of its run as the colon's (quadratic in a line's blanks)
_KEYLINE = re.compile(
    r"^(?P<key>\"(?:[^\"\\\n]|\\.)+\"|'(?:[^'\n]|'')+'"
    r"|[^\s#'\"\-?:,\[\]{}&*!|>%@`](?:[ \t]*(?:[^:\n \t]|:(?![ \t]|$)))*?)"
    r"(?P<colon>[ \t]*:)(?=[ \t]|$)(?P<rest>.*)$",
    re.S,
)
_SEQ_ITEM = re.compile(r"^-(?:[ \t]|\r?\n|\r?$)")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


class PatchError(ValueError):
    """The frontmatter cannot be patched without risking the person's content."""


@dataclass
class _Entry:
    key: str
    start: int  # line index of "key:"
    end: int  # one past its last continuation line


def _split_lines(text: str) -> list[str]:
    """Lines with their endings; only \\n ends a line (str.splitlines also splits on \\x0c, \\x85...)."""
    return _LINE.findall(text)


def _key_name(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("''", "'")
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        if "\\" in raw:
            try:
                return str(load_yaml("k: " + raw)["k"])
            except (YamlProblem, TypeError, KeyError):
                return raw[1:-1]
        return raw[1:-1]
    return raw


def _is_blank_or_comment(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


def _entries(lines: list[str]) -> list[_Entry]:
    out: list[_Entry] = []
    for i, line in enumerate(lines):
        if line.startswith((" ", "\t")):
            if out and line.strip():
                out[-1].end = i + 1
            continue
        if _SEQ_ITEM.match(line):  # a block-sequence item at column 0 (YAML allows it)
            if out:
                out[-1].end = i + 1
            continue
        m = _KEYLINE.match(line.rstrip("\r\n"))
        if m:
            out.append(_Entry(_key_name(m.group("key")), i, i + 1))
        elif out and not _is_blank_or_comment(line):
            out[-1].end = i + 1  # a flow collection or quoted scalar continued at column 0
    for e in out:  # comment lines after an entry belong to what follows, not to the entry
        if lines[e.start].split(":", 1)[-1].strip()[:1] in ("|", ">"):
            continue  # inside a block scalar a '#' line is text
        while e.end - 1 > e.start and _is_blank_or_comment(lines[e.end - 1]):
            e.end -= 1
    return out


def _split_comment(rest: str) -> tuple[str, str]:
    """(value, trailing ' # comment' with its leading spaces) of a single-line value."""
    value, comment, _ = _scan(rest)
    return value, comment


def _scan(rest: str) -> tuple[str, str, bool]:
    """(value, comment, closed): closed is False when a quote or flow collection stays open at the end."""
    quote = None
    prev = ""  # last non-blank character outside quotes
    depth = 0
    i, n = 0, len(rest)
    while i < n:
        ch = rest[i]
        if quote == "'":
            if ch == "'":
                if i + 1 < n and rest[i + 1] == "'":
                    i += 2
                    continue
                quote, prev = None, ch
        elif quote == '"':
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                quote, prev = None, ch
        elif ch in "'\"" and prev in ("", "[", "{", ",", ":", "?", "-"):
            quote = ch
        elif ch == "#" and i > 0 and rest[i - 1] in " \t":
            value = rest[:i].rstrip(" \t")
            return value, rest[len(value) :], depth == 0
        elif ch not in " \t":
            if ch in "[{" and prev in ("", "[", "{", ",", ":", "?", "-"):
                depth += 1
            elif ch in "]}" and depth:
                depth -= 1
            prev = ch
        i += 1
    value = rest.rstrip(" \t")
    return value, rest[len(value) :], quote is None and depth == 0


def _all_closed(lines: list[str]) -> bool:
    """No line leaves a quote or flow collection open, so no later line can be inside one.

    PyYAML lets a quoted scalar or a flow list continue at column 0, where a line such as
    `decay_score: 0.3` would be text, not a key. Conservative: an unusual line says False.
    """
    for line in lines:
        if '"' not in line and "'" not in line and "[" not in line and "{" not in line:
            continue
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        if stripped.startswith("-") and _SEQ_ITEM.match(stripped):
            stripped = stripped[1:].lstrip(" \t")
        m = _KEYLINE.match(stripped)
        if m is None:
            return False  # a continuation line holding a quote or bracket: let the full check decide
        if not _scan(m.group("rest"))[2]:
            return False
    return True


def _flow_list(values: list[Any]) -> str:
    return "[" + ", ".join(render_scalar(v, flow=True) for v in values) + "]"


def _item_prefix(item_lines: list[str]) -> str | None:
    """The indentation and dash spacing of a block list, e.g. '  - ' or '- '."""
    for ln in item_lines:
        stripped = ln.lstrip(" \t")
        if stripped.startswith("-") and _SEQ_ITEM.match(stripped):
            indent = ln[: len(ln) - len(stripped)]
            dash = re.match(r"-([ \t]*)", stripped)
            gap = (dash.group(1) if dash else "") or " "
            return f"{indent}-{gap}"
    return None


def _block_list(head: str, comment: str, first_nl: str, prefix: str, values: list[Any], nl: str) -> list[str]:
    if not values:
        return [f"{head} []{comment}{first_nl}"]
    return [f"{head}{comment}{first_nl}"] + [f"{prefix}{render_scalar(v)}{nl}" for v in values]


def _render_entry(lines: list[str], entry: _Entry | None, key: str, value: Any, nl: str, prefix: str) -> list[str]:
    """Replacement lines for one key, in the style already used there."""
    if isinstance(value, Spelled):
        if value.text is None:
            return _render_entry(lines, entry, key, value.value, nl, prefix)
        return _render_spelled(lines, entry, key, value.text, nl)
    if entry is None:
        if isinstance(value, (list, tuple)):
            return _block_list(f"{key}:", "", nl, prefix, list(value), nl)
        return [f"{key}: {render_scalar(value)}{nl}"]
    first = lines[entry.start]
    line_nl = "\r\n" if first.endswith("\r\n") else ("\n" if first.endswith("\n") else nl)
    m = _KEYLINE.match(first.rstrip("\r\n"))
    assert m is not None
    head = first[: m.end("colon")]
    old_value, comment = _split_comment(m.group("rest"))
    gap = old_value[: len(old_value) - len(old_value.lstrip(" \t"))] or " "
    bare = old_value.strip()
    multiline = entry.end - entry.start > 1
    if isinstance(value, (list, tuple)):
        value = list(value)
        if bare.startswith("["):  # flow list (possibly spread over lines): one line, same style
            return [f"{head}{gap}{_flow_list(value)}{comment if not multiline else ''}{line_nl}"]
        if multiline and not bare:
            own = _item_prefix(lines[entry.start + 1 : entry.end]) or prefix
            return _block_list(head, comment, line_nl, own, value, line_nl)
        return _block_list(head, comment, line_nl, prefix, value, line_nl)
    if multiline or bare[:1] in ("|", ">", "&", "!", "*", "[", "{"):
        return [f"{head} {render_scalar(value)}{comment if not multiline else ''}{line_nl}"]
    quote = bare[0] if bare[:1] in ("'", '"') and isinstance(value, str) else None
    return [f"{head}{gap}{render_scalar(value, quote=quote)}{comment}{line_nl}"]


def _render_spelled(lines: list[str], entry: _Entry | None, key: str, text: str, nl: str) -> list[str]:
    if entry is None:
        return [f"{key}: {text}{nl}"]
    first = lines[entry.start]
    line_nl = "\r\n" if first.endswith("\r\n") else ("\n" if first.endswith("\n") else nl)
    m = _KEYLINE.match(first.rstrip("\r\n"))
    assert m is not None
    old_value, comment = _split_comment(m.group("rest"))
    gap = old_value[: len(old_value) - len(old_value.lstrip(" \t"))] or " "
    multiline = entry.end - entry.start > 1
    return [f"{first[: m.end('colon')]}{gap}{text}{comment if not multiline else ''}{line_nl}"]


MAX_LAYOUT_CHARS = 200  # a comment line longer than this is named by its first characters


def layout_line(line: str) -> str | None:
    """How a layout names a comment or blank line that belongs to no key (None: not one)."""
    text = line.rstrip("\r\n")
    return text[:MAX_LAYOUT_CHARS] if _is_blank_or_comment(text) else None


def _loose_lines(lines: list[str], entries: list[_Entry]) -> list[int]:
    """Indexes of the comment and blank lines outside every key's lines."""
    inside = {i for e in entries for i in range(e.start, e.end)}
    return [i for i in range(len(lines)) if i not in inside and layout_line(lines[i]) is not None]


def _anchor(
    value: Any, by_key: dict[str, _Entry], updates: dict[str, Any], lines: list[str], loose: list[int]
) -> int | None:
    """The line an added key goes before: its first follower still in the block (None: append).
    A comment or blank line follower is the one with that text as many from the end as in
    `before` (the person's lines stay where they were, so the key goes back above or below its
    comment as the note had it). Keys added before one anchor keep their order because
    `updates` lists them in that order."""
    if not isinstance(value, Spelled):
        return None
    for n, name in enumerate(value.before):
        if name in by_key:
            if updates.get(name) is not REMOVE:
                return by_key[name].start
            continue
        if layout_line(name) is None:
            continue
        same = [i for i in loose if layout_line(lines[i]) == name]
        later = value.before[n + 1 :].count(name)
        if len(same) > later:
            return same[len(same) - 1 - later]
    return None


def raw_scalars(text: str, keys: tuple[str, ...]) -> tuple[dict[str, str], list[str]]:
    """How each of `keys` is spelled in the frontmatter of `text` (one-line values only), and
    its layout: the order of all its keys and, between them, its loose comment and blank
    lines (`layout_line`)."""
    text = text[1:] if text.startswith(BOM) else text
    try:
        block = find_block(text)
    except UnclosedFrontmatter:
        return {}, []
    if block is None:
        return {}, []
    lines = _split_lines(text[block.yaml_start : block.yaml_end])
    out: dict[str, str] = {}
    entries = _entries(lines)
    for e in entries:
        if e.key in keys and e.end - e.start == 1:
            m = _KEYLINE.match(lines[e.start].rstrip("\r\n"))
            if m is not None:
                out[e.key] = _split_comment(m.group("rest"))[0].strip()
    at = {e.start: e.key for e in entries}
    at.update({i: layout_line(lines[i]) or "" for i in _loose_lines(lines, entries)})
    return out, [at[i] for i in sorted(at)]


def _new_block(text: str, updates: dict[str, Any]) -> str:
    nl = detect_newline(text) if "\n" in text else "\n"
    new_lines: list[str] = []
    for key, value in updates.items():
        if value is not REMOVE:
            new_lines += _render_entry([], None, key, value, nl, "  - ")
    if not new_lines:
        return text
    result = "---" + nl + "".join(new_lines) + "---" + nl + text
    _verify({}, result, updates)
    return result


def _person_spelling(updates: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """Updates of owned keys the person wrote with capitals (`Decay_Score:`) go to that key,
    never to a second, lower-case one (note.owned_view reads them the same way)."""
    spellings = owned_spellings(before)
    if not spellings:
        return updates
    return {
        (spellings[k][0] if k in spellings and k not in before and len(spellings[k]) == 1 else k): v
        for k, v in updates.items()
    }


def patch_frontmatter(text: str, updates: dict[str, Any], parsed: dict[str, Any] | None = None) -> str:
    """Text (no BOM) with `updates` applied to its frontmatter; raises PatchError when unsafe.

    `parsed`: the caller's reading of this very text's frontmatter (already checked for
    duplicate keys), which saves parsing it again; the result is still verified.
    """
    if text.startswith(BOM):
        return BOM + patch_frontmatter(text[1:], updates, parsed)
    if not updates:
        return text
    try:
        block = find_block(text)
    except UnclosedFrontmatter as exc:
        raise PatchError(str(exc)) from None
    if block is None:
        return _new_block(text, updates)
    yaml_text = text[block.yaml_start : block.yaml_end]
    try:
        before, dupes = (parsed, []) if parsed is not None else load_frontmatter(yaml_text)
    except YamlProblem as exc:
        raise PatchError(str(exc)) from None
    before = {} if before is None else before
    if not isinstance(before, dict):
        raise PatchError("frontmatter is not a mapping of keys to values")
    if dupes:
        raise PatchError(f"duplicate frontmatter key(s): {', '.join(dupes)}")
    updates = _person_spelling(updates, before)
    nl = block.newline
    lines = _split_lines(yaml_text)
    entries = _entries(lines)
    by_key: dict[str, _Entry] = {}
    for e in entries:
        if e.key in by_key:
            raise PatchError(f"duplicate frontmatter key {e.key!r}")
        by_key[e.key] = e
    prefix = "  - "
    for e in entries:
        if e.end - e.start > 1:
            found = _item_prefix(lines[e.start + 1 : e.end])
            if found:
                prefix = found
                break
    replaced: dict[int, tuple[int, list[str]]] = {}
    appended: list[str] = []
    inserted: dict[int, list[str]] = {}  # line index -> added keys that go right before it
    loose = _loose_lines(lines, entries)
    numbers_only = True  # every update swaps one number for another on its own line
    for key, value in updates.items():
        entry = by_key.get(key)
        if (entry is not None) != (key in before):
            raise PatchError(f"cannot locate {key!r} in the frontmatter's layout")
        if value is REMOVE:
            if entry is not None:
                replaced[entry.start] = (entry.end, [])
            numbers_only = False
            continue
        rendered = _render_entry(lines, entry, key, value, nl, prefix)
        if entry is None:
            anchor = _anchor(value, by_key, updates, lines, loose)
            if anchor is None:
                appended += rendered
            else:
                inserted.setdefault(anchor, []).extend(rendered)
            numbers_only = False
        else:
            replaced[entry.start] = (entry.end, rendered)
            numbers_only = numbers_only and not isinstance(value, Spelled) and _number_swap(lines, entry, value)
    out: list[str] = []
    i = 0
    while i < len(lines):
        out += inserted.get(i, [])
        if i in replaced:
            end, new = replaced[i]
            out += new
            i = end
        else:
            out.append(lines[i])
            i += 1
    if appended and out and not out[-1].endswith("\n"):
        out[-1] += nl
    out += appended
    result = text[: block.yaml_start] + "".join(out) + text[block.yaml_end :]
    if not numbers_only or not _all_closed(lines):
        _verify(before, result, updates)
    return result


def swap_numbers(text: str, updates: dict[str, float]) -> str | None:
    """`updates` applied when each swaps a number for a number on the key's own line; else None.

    No YAML parse at all: for a caller that knows this very text's frontmatter reads
    cleanly, without duplicate keys or problems and with these keys present (the index
    read these bytes). None means "take the full patch_frontmatter path".
    """
    bom = text.startswith(BOM)
    core = text[1:] if bom else text
    try:
        block = find_block(core)
    except UnclosedFrontmatter:
        return None
    if block is None:
        return None
    lines = _split_lines(core[block.yaml_start : block.yaml_end])
    if not _all_closed(lines):  # else a `key: 1` line could be text inside a quoted value
        return None
    out = list(lines)
    for key, value in updates.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None
        hits = [i for i, line in enumerate(lines) if line.startswith(key) and _KEY_COLON.match(line, len(key))]
        if len(hits) != 1:
            return None
        i = hits[0]
        m = _NUMBER_LINE.match(lines[i], len(key))
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if m is None or after[:1] in (" ", "\t") and not _is_blank_or_comment(after):
            return None  # not a lone number, or a value continued on the next line
        out[i] = key + m.group("head") + render_scalar(value) + m.group("tail")
    return (BOM if bom else "") + core[: block.yaml_start] + "".join(out) + core[block.yaml_end :]


_NUM = r"[-+]?(?:\d[\d_]*)?\.?\d+(?:[eE][-+]?\d+)?"  # a number as a person or we write it
_KEY_COLON = re.compile(r"[ \t]*:(?=[ \t\r\n]|$)")
_NUMBER_LINE = re.compile(rf"(?P<head>[ \t]*:[ \t]+){_NUM}(?P<tail>(?:[ \t]+#[^\r\n]*)?[ \t]*\r?\n?)\Z")
_NUMBER = re.compile(rf"^(?:{_NUM}|null|~|)$")


def _number_swap(lines: list[str], entry: "_Entry", value: Any) -> bool:
    """A one-line `key: <number>` whose number becomes another number (a sweep's write).

    Such a swap cannot change how any other line reads: neither value opens a quote, a
    flow collection or a block, and the comment after it is kept as it was; so the full
    re-parse of the result is skipped. The new value itself is plain YAML by construction.
    """
    if entry.end - entry.start != 1 or isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    m = _KEYLINE.match(lines[entry.start].rstrip("\r\n"))
    return m is not None and _NUMBER.match(_split_comment(m.group("rest"))[0].strip()) is not None


def _same(a: Any, b: Any) -> bool:
    """Equality where NaN equals NaN (a person's `x: .nan` must not block every patch)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _verify(before: dict[str, Any], result: str, updates: dict[str, Any]) -> None:
    try:
        block = find_block(result)
        after, dupes = load_frontmatter(result[block.yaml_start : block.yaml_end]) if block else ({}, [])
    except (UnclosedFrontmatter, YamlProblem) as exc:
        raise PatchError(f"patching would break the frontmatter: {exc}") from None
    after = {} if after is None else after
    if not isinstance(after, dict) or dupes:
        raise PatchError("patching would break the frontmatter")
    for key in set(before) | set(after):
        if key in updates:
            continue
        if (key in before) != (key in after) or not _same(before.get(key), after.get(key)):
            raise PatchError(f"patching would change the person's key {key!r}")
    for key, value in updates.items():
        if value is REMOVE:
            if key in after:
                raise PatchError(f"could not remove {key!r}")
            continue
        if key not in after:
            raise PatchError(f"{key!r} would not be written")
        got = after[key]
        if isinstance(value, Spelled):
            value = value.value
        if isinstance(value, datetime):
            g = parse_datetime(got) if isinstance(got, (datetime, str)) else None
            ok = g is not None and abs((g - value.astimezone()).total_seconds()) < 1
        elif isinstance(value, float) and math.isnan(value):
            ok = isinstance(got, float) and math.isnan(got)
        elif (
            isinstance(value, numbers.Real) and not isinstance(value, bool) and not isinstance(value, numbers.Integral)
        ):
            ok = (
                isinstance(got, (int, float))
                and not isinstance(got, bool)
                and (got == value or abs(got - float(value)) <= 1e-12 * max(1.0, abs(float(value))))
            )
        elif isinstance(value, tuple):
            ok = got == list(value)
        else:
            ok = got == value and (isinstance(got, bool) == isinstance(value, bool))
        if not ok:
            raise PatchError(f"{key!r} would read back as {got!r}, not {value!r}")
