"""Bounds on everything a client may send, and the validators the engine runs on each input.

Every front end (CLI, MCP, HTTP) reaches the engine through MemoryService, so checking here
means no front end can skip it. The bridge's schemas (bridge/schemas.py) use the same
constants to refuse oversized requests before any work starts.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from .errors import InvalidInput

MAX_BODY_BYTES = 4 * 1024 * 1024  # an HTTP request body (a 200k-character text fits even \u-escaped)
MAX_QUERY_STRING_BYTES = 16 * 1024  # an HTTP query string: room for a 1,000-character query percent-encoded
MAX_TEXT_CHARS = 200_000  # a memory's text
MAX_TITLE_CHARS = 200
MAX_TAG_CHARS = 100
MAX_TAGS = 50
MAX_QUERY_CHARS = 1_000  # a search query
MAX_REF_CHARS = 1_024  # a memory id or a vault path
MAX_REFS = 100  # refs in one call (observe, get_memory, consolidate)
MAX_RELATION_CHARS = 40
MAX_SEARCH_LIMIT = 200
# an imported record: what it brings besides its text, tags and title (all kept in frontmatter,
# which is read only up to fmblock.MAX_YAML_CHARS: past that the note could not be indexed)
MAX_METADATA_CHARS = 16_000  # a source's free-form metadata, as one line of JSON (Mem0 `metadata`)
MAX_FIELD_CHARS = 4_000  # any other field kept from a source (a Basic Memory `type`, a key of our export)
MAX_RELATIONS = 100  # relations from one imported memory
MAX_IMPORTED_CHARS = 40_000  # everything one imported record puts in frontmatter, together
MAX_USE_COUNT = 1_000_000_000
MAX_LIMIT = 1_000  # review, gc, and other list limits
# the most characters one MCP tool answer may hold, whatever its arguments: about 10k tokens, a
# small part of an assistant's context. Default page sizes stay under it; larger pages are cut
# to it with paging that says how to get the rest (bridge/mcp_results.fit).
ANSWER_CHARS = 40_000
QUOTE_CHARS = 40
REF_CHARS = 120  # a ref or path quoted in an error: enough to recognise it, never a whole 1,024-character input

# bidi controls: they make a name display other than it is (U+202E "right-to-left override")
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def quote(value: Any, n: int = QUOTE_CHARS) -> str:
    """A short, printable prefix of `value` for an error message (never the whole input)."""
    s = value if isinstance(value, str) else repr(value)
    cut = s[:n]
    return repr(cut + "…") if len(s) > n else repr(cut)


def bad_char(s: str, allow_newlines: bool = False) -> str | None:
    """The name of the first character not allowed in a name (tag, title, relation type)."""
    for ch in s:
        if allow_newlines and ch in "\n\r\t":
            continue
        cat = unicodedata.category(ch)
        if ch in _BIDI:
            return f"a bidi control character (U+{ord(ch):04X})"
        if cat == "Cs":
            return f"an unpaired surrogate (U+{ord(ch):04X})"
        if cat in ("Cc", "Zl", "Zp"):
            return (
                "a line break"
                if ch in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
                else f"a control character (U+{ord(ch):04X})"
            )
    return None


def clean_name(s: str) -> str:
    """A name in one spelling: NFC (an NFD "café" from macOS is the same name) and without
    invisible format characters (zero-width spaces and joiners, soft hyphens, BOMs), which
    would make look-alike names. Bidi controls are not removed here: check_name refuses them."""
    s = unicodedata.normalize("NFC", s)
    return "".join(ch for ch in s if ch in _BIDI or unicodedata.category(ch) != "Cf")


def spellings(ref: str) -> list[str]:
    """`ref` as given, then in NFC and NFD: the names a file system may hold it under."""
    return list(dict.fromkeys((ref, unicodedata.normalize("NFC", ref), unicodedata.normalize("NFD", ref))))


def page(items: list[Any], offset: int, limit: int) -> dict[str, Any]:
    """One page of `items`: the page, the total, and where the next page starts (None at the end)."""
    end = offset + limit
    return {
        "items": items[offset:end],
        "total": len(items),
        "offset": offset,
        "next_offset": end if end < len(items) else None,
    }


def check_name(what: str, value: Any, max_chars: int) -> str:
    """A one-line name: a string, not too long, no line breaks, control or bidi characters;
    returned in its one spelling (clean_name)."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string")
    if len(value) > max_chars:
        raise InvalidInput(f"{what} is too long ({len(value)} characters, limit {max_chars})")
    why = bad_char(value)
    if why:
        raise InvalidInput(f"{what} {quote(value)} contains {why}")
    return clean_name(value)


def check_text(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidInput("the memory text must be a string")
    if len(value) > MAX_TEXT_CHARS:
        raise InvalidInput(
            f"too long for one memory ({len(value)} characters, limit {MAX_TEXT_CHARS}); save it as a note instead"
        )
    try:
        value.encode("utf-8")  # fails exactly on a surrogate (C speed; a 200,000-character text is common)
    except UnicodeEncodeError as exc:
        ch = value[exc.start]
        raise InvalidInput(
            f"the text contains an unpaired surrogate (U+{ord(ch):04X}); it is not valid Unicode"
        ) from None
    return value


def check_title(value: Any) -> str | None:
    if value is None:
        return None
    return check_name("the title", value, MAX_TITLE_CHARS)


def check_tags(value: Any, what: str = "tags") -> list[str] | None:
    """A list of strings (a bare string is refused, never split into letters), bounded."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise InvalidInput(f"{what} must be a list of strings")
    if len(value) > MAX_TAGS:
        raise InvalidInput(f"too many {what} ({len(value)}, limit {MAX_TAGS})")
    return [check_name("a tag", tag, MAX_TAG_CHARS) for tag in value]


MIN_STRENGTH, MAX_STRENGTH = 0.0, 2.0  # a memory's strength: given, read from frontmatter, reinforced


def cap_strength(value: float) -> float:
    """A reinforced strength (a touch, a merge) never above MAX_STRENGTH."""
    return min(MAX_STRENGTH, value)


def check_strength(value: Any) -> float:
    span = f"{MIN_STRENGTH}-{MAX_STRENGTH}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput(f"strength must be a number from {MIN_STRENGTH} to {MAX_STRENGTH}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        raise InvalidInput(f"strength {quote(value)} is out of range {span}") from None
    if not math.isfinite(number) or not MIN_STRENGTH <= number <= MAX_STRENGTH:
        raise InvalidInput(f"strength {quote(value)} is out of range {span}")
    return number


def check_limit(value: Any, maximum: int = MAX_LIMIT, what: str = "limit", minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{what} must be a whole number from {minimum} to {maximum}")
    if not minimum <= value <= maximum:
        raise InvalidInput(f"{what} must be a whole number from {minimum} to {maximum}; got {quote(value)}")
    return value


def check_ref(value: Any, what: str = "ref") -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string (a memory id or a path in the vault)")
    if len(value) > MAX_REF_CHARS:
        raise InvalidInput(f"{what} is too long ({len(value)} characters, limit {MAX_REF_CHARS})")
    return value


def check_refs(value: Any, what: str = "refs", each: bool = True) -> list[str]:
    """A bounded list of refs; `each=False` leaves each ref to be checked (and reported) alone."""
    if not isinstance(value, (list, tuple)):
        raise InvalidInput(f"{what} must be a list of memory ids or paths")
    if len(value) > MAX_REFS:
        raise InvalidInput(f"too many {what} ({len(value)}, limit {MAX_REFS})")
    return [check_ref(r, what) for r in value] if each else list(value)


def check_query(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInput("the query must be a string")
    if len(value) > MAX_QUERY_CHARS:
        raise InvalidInput(f"the query is too long ({len(value)} characters, limit {MAX_QUERY_CHARS})")
    return value


def limits_table() -> str:
    """The README's table of limits, from the constants above (a test keeps the README equal)."""
    rows = [
        ("memory text", f"{MAX_TEXT_CHARS:,} characters"),
        ("title", f"{MAX_TITLE_CHARS:,} characters, one line"),
        ("tags", f"{MAX_TAGS:,} per memory, {MAX_TAG_CHARS:,} characters each; letters, digits, `_`, `-`, `/`"),
        ("relation type", f"{MAX_RELATION_CHARS:,} characters: lower-case letters, digits, `_`"),
        ("search query", f"{MAX_QUERY_CHARS:,} characters"),
        ("id or path (`ref`)", f"{MAX_REF_CHARS:,} characters; {MAX_REFS:,} refs per call"),
        (
            "`limit`",
            f"1-{MAX_SEARCH_LIMIT:,} for search, 1-{MAX_LIMIT:,} elsewhere "
            "(a hard cap: `gc --apply --limit 2` archives at most 2)",
        ),
        (
            "HTTP request body",
            f"{MAX_BODY_BYTES // (1024 * 1024)} MiB (413), query string {MAX_QUERY_STRING_BYTES // 1024} KiB (414)",
        ),
    ]
    return "\n".join(["| input | limit |", "| --- | --- |", *(f"| {a} | {b} |" for a, b in rows)]) + "\n"


if __name__ == "__main__":  # python -m vault_sync.limits: the table to paste into the README
    print(limits_table(), end="")
