"""The linear-time parsers (issue 38) against the regexes they replaced, on random mixtures
of the characters that matter: the same matches where the old regex is the reference (it is
fine on short texts, only slow on long ones), a superset where the old pattern was only a
pre-check, and for every parser: no exception, and the same answer twice."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from vault_sync import codeblocks, fmblock, links, names, patch, secret_gate, secrets
from vault_sync.mdlinks import first_h1, md_links
from vault_sync.search import fts

# --- the old patterns, kept as references ---------------------------------------------------

OLD_MDLINK = re.compile(r"\[([^\]\n]*)\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*\)")
OLD_H1 = re.compile(r"#[ \t]+([^\n]+?)(?:[ \t]+#+)?[ \t]*\r?(?=\n|\Z)")
OLD_ASSIGN_SRC = (
    r"(passw(?:or)?d|pwd|passphrase|secret(?:[_-]?key)?|token|api[_-]?key|apikey"
    r"|access[_-]?key|private[_-]?key)"
    r"[\"'`]?\]?(?:\*\*)?[ \t]*(?:::?|:?=(?!=)|=>)[ \t]*(?:\*\*)?[ \t]*"
    r"(?:\"([^\"\n]*)\"|'([^'\n]*)'|`([^`\n]*)`|([^\s\"'`,;&)\]}*<>]+|<[^>\s]*>))"
)
OLD_ASSIGN, OLD_ASSIGN_I = re.compile(OLD_ASSIGN_SRC), re.compile(OLD_ASSIGN_SRC, re.IGNORECASE)
OLD_KEYLINE = re.compile(
    r"^(?P<key>\"(?:[^\"\\\n]|\\.)+\"|'(?:[^'\n]|'')+'|[^\s#'\"\-?:,\[\]{}&*!|>%@`](?:[^:\n]|:(?![ \t]|$))*?)"
    r"(?P<colon>[ \t]*:)(?=[ \t]|$)(?P<rest>.*)$",
    re.S,
)
OLD_SLUG_LINK = re.compile(r"\[\[([^\]|]*\|)?([^\]]*)\]\]")
_INDENTED = r"(?: {4}| {0,3}\t)"
_CONTAINER = r"(?:[ ]{0,3}(?:>|[-*+]|\d{1,9}[.)])[ \t]?)"
_AFTER_BLANK = r"(?:[ \t>*+-]|\d{1,9}[.)])*(?:#[^\n]*|[-*_=][-*_= \t]*)?\r?\n" + _CONTAINER + "*" + _INDENTED
OLD_INDENTED_AT_START = re.compile(_CONTAINER + "+" + _INDENTED + "|" + _INDENTED + "|" + _AFTER_BLANK)
OLD_INDENTED_AFTER_NEWLINE = re.compile(r"\n(?:" + _CONTAINER + "+" + _INDENTED + "|" + _AFTER_BLANK + ")")


def old_first_h1(text: str) -> str | None:
    pos = 0 if text.startswith("#") else text.find("\n#") + 1
    while pos > 0 or text.startswith("#"):
        m = OLD_H1.match(text, pos)
        if m:
            return m.group(1).strip()
        pos = text.find("\n#", pos + 1) + 1
        if pos == 0:
            return None
    return None


def old_assignments(text: str) -> list[tuple[int, int, int, int, int, str]]:
    low = text.lower()
    if len(low) == len(text):
        found = (OLD_ASSIGN.match(low, i) for i in secrets._find_all(low, secrets._ASSIGN_ROOTS))
    else:
        found = OLD_ASSIGN_I.finditer(text)
    out = []
    for m in found:
        if m is not None and m.lastindex:
            g = m.lastindex
            out.append((m.start(), m.end(), g, m.start(g), m.end(g), m.group(1)))
    return out


# --- random mixtures -------------------------------------------------------------------------

PIECES = list("[]()`~#!|\n-: \tab<>\"'*>1.=") + ["    ", "```", "~~~", "---", "[[", "]]", "](", "\r\n", "# "]
SECRET_PIECES = PIECES + ["token", "password", "api_key", "secret_key", "İ", "ſecret", "::", ":=", "=>", "**"]
SECRET_PIECES += ["eyJ", ".", "AbC9xyz_-", "ghp_", "sk-", "://u:p@h", "0123456789abcdef"]


def mixture(pieces: list[str], max_size: int = 40) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=max_size).map("".join)


@settings(max_examples=400, deadline=None)
@given(mixture(PIECES))
def test_markdown_links_and_heading_match_the_old_regexes(text):
    old = [
        (m.start(), m.start() + 1 + len(m.group(1)), m.start(2), m.end(2), m.end()) for m in OLD_MDLINK.finditer(text)
    ]
    assert md_links(text) == old
    assert first_h1(text) == old_first_h1(text)


@settings(max_examples=400, deadline=None)
@given(mixture(SECRET_PIECES))
def test_secret_assignments_and_tokens_match_the_old_regexes(text):
    assert list(secrets._assignments(text, text.lower())) == old_assignments(text)
    jwt = next(p for kind, _, p, _ in secrets._RULES if kind == "JSON Web Token")
    assert [m.span() for m in secrets._jwt_matches(jwt, text)] == [m.span() for m in jwt.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(mixture(PIECES + ["a", "b", "'", '"', "\\"], 20))
def test_frontmatter_key_line_and_memory_name_match_the_old_regexes(text):
    new, old = patch._KEYLINE.match(text), OLD_KEYLINE.match(text)
    assert (new and new.groupdict()) == (old and old.groupdict())
    assert names._link_text(text) == OLD_SLUG_LINK.sub(r"\2", text)


@settings(max_examples=400, deadline=None)
@given(mixture(PIECES + ["  ", "2)", "_", "=", "- ", "> "]))
def test_indented_code_precheck_misses_nothing_the_old_one_saw(text):
    old = OLD_INDENTED_AT_START.match(text) is not None or OLD_INDENTED_AFTER_NEWLINE.search(text) is not None
    new = codeblocks._INDENTED_AT_START.match(text) is not None or codeblocks._INDENTED_AFTER_NEWLINE.search(text)
    assert new or not old
    # and the pre-check with the block scan still gives the full parse's code blocks
    assert codeblocks.code_lines(text) == codeblocks.parsed_code_lines(text)


@settings(max_examples=300, deadline=None)
@given(mixture(SECRET_PIECES, 60))
def test_every_parser_terminates_and_answers_the_same_twice(text):
    def run() -> list[object]:
        try:
            block: object = fmblock.find_block(text)
        except fmblock.UnclosedFrontmatter:
            block = "unclosed"
        return [
            links.extract(text),
            links.strip_code(text),
            codeblocks.maybe_indented_code(text),
            block,
            secrets.find_secrets(text),
            secret_gate.scan(text),
            fts.marked_excerpt(text, ["ab", "[a]"]),
            fts.lead(text),
            names.slug_from(text),
        ]

    assert run() == run()
