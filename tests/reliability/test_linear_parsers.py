"""Every parser runs in linear time: each gets its worst shapes at 10 KB, 100 KB and 1 MB and
the time may grow about tenfold per step, not a hundredfold (a ratio in one run, CPU time of
this process, best of a few tries, so a loaded machine only adds noise). Then the attack that
hung the daemon, through the real indexer: a 100 KB note of `[a](` indexes within a small
multiple of a plain 100 KB note.

Measured on the shared 2-core machine (CPU s; "before" at 1 MB is quadratic, not waited for):

    shape                          before                 after 100 KB   after 1 MB
    [a]( repeated (links)          131 s at 100 KB        0.10           0.72
    [[[[a]( repeated               12 s at 20 KB          0.06           0.61
    '# a' + blanks + 'b' (heading) 16.5 s at 20 KB        0.005          0.05
    lines of 30 '- ' (code pre-check) 56 s at 20 KB (18 marks; doubles per mark)  0.03  0.27
    token=token=... (secrets)      90 s at 100 KB         0.11           1.0
    eyJ repeated (JWT rule)        6.8 s at 100 KB        0.002          0.02
    api_key=< repeated             8.3 s at 100 KB        0.05           0.44
    frontmatter key + blanks       0.88 s at 20 KB        0.004          0.04
    '[[' repeated (memory name)    22 s at 20 KB          0.03           0.26
    '# x' + blanks + 'y' (import)  24 s at 2 KB (cubic)   0.0002         0.002
    '- ' + blanks (import bullet)  1.2 s at 8 KB          0.0001         0.001
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import make_service

from vault_sync import codeblocks, fmblock, links, names, note, patch, secret_gate, secrets
from vault_sync.search import fts
from vault_sync.transfer import markdown

SIZES = (10_000, 100_000, 1_000_000)
RATIO = 25  # linear: ~10 per step; quadratic: ~100
FLOOR = 0.002  # seconds: below this a step's time is noise


def _fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    body = unit * (size // len(unit) + 1)
    return head + body[: size - len(head) - len(tail)] + tail


def _best(parse: Callable[[str], object], text: str, tries: int) -> float:
    best = float("inf")
    for _ in range(tries):
        start = time.process_time()
        parse(text)
        best = min(best, time.process_time() - start)
    return best


def _find_block(text: str) -> object:
    try:
        return fmblock.find_block(text)
    except fmblock.UnclosedFrontmatter:
        return None


def _lines(unit: str) -> str:
    return unit + "\n"


# (name, parser, repeated unit, text before, text after)
CASES: list[tuple[str, Callable[[str], object], str, str, str]] = [
    ("link [a](", links.extract, "[a](", "", ""),
    ("link [[[[a](", links.extract, "[[[[a](", "", ""),
    ("link title (", links.extract, '[a](b (c "', "", ""),
    ("link <url", links.extract, "[a](<", "", ""),
    ("wikilink [[", links.extract, "[[a|", "", ""),
    ("tags", links.extract, "#tag#a/b ", "", ""),
    ("heading blanks", links.extract, " ", "# a", "b"),
    ("code spans", links.strip_code, "``a`", "", ""),
    ("fence unclosed", links.strip_code, "~~~\n```\nx\n", "", ""),
    ("list marks", codeblocks.maybe_indented_code, _lines("- " * 30 + "x"), "a    b\n\n", ""),
    ("frontmatter unclosed", _find_block, "a: b\n", "---\n", ""),
    ("note unclosed frontmatter", lambda t: note.parse_note("n.md", t.encode()), "[a](#t ", "---\n", ""),
    ("frontmatter key blanks", patch._KEYLINE.match, " ", "a", "x"),
    ("secret token=", secrets.find_secrets, "token=", "", ""),
    ("secret token=(", secrets.find_secrets, "password:(", "", ""),
    ("secret <", secrets.find_secrets, "api_key=<", "", ""),
    ("secret eyJ", secrets.find_secrets, "eyJ", "", ""),
    ("secret re.I path", secrets.find_secrets, "İtoken=<", "", ""),
    ("secret gate prefixes", secret_gate.scan, "ghp_ sk-ant- xoxb- ://a:b@ ", "", ""),
    ("snippet", lambda t: fts.marked_excerpt(t, ["aaa", "ab"]), "ab aaa ", "", ""),
    ("lead", fts.lead, "# h\n  a  b\n", "", ""),
    ("memory name [[", names.slug_from, "[[", "", "a]b"),
    ("import heading blanks", markdown.first_heading, " ", "# x", "y"),
    ("import bullet blanks", markdown.bullet, " ", "- ", ""),
    ("import numbered blanks", markdown.bullet, " ", "1.", "\t"),
]


def _grows_linearly(name: str, parse: Callable[[str], object], unit: str, head: str, tail: str, sizes=SIZES) -> None:
    times = [_best(parse, _fill(unit, size, head, tail), tries) for size, tries in zip(sizes, (3, 2, 1))]
    small, mid, big = (max(t, FLOOR) for t in times)
    assert mid / small < RATIO and big / mid < RATIO, f"{name}: {times}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_parser_time_grows_linearly(case):
    _grows_linearly(*case)


def test_nested_quotes_and_lists_grow_linearly():
    """Blocks the scan hands to markdown-it: it reads them at ~15 us a character (its full
    parse costs the same), so these sizes are a tenth of the others."""
    _grows_linearly("nested items", links.strip_code, "- a\n  > b\n    - c\n\t1. d\n", "", "", (3_000, 30_000, 300_000))


def _index_time(vault: Path, svc, rel: str, text: str) -> float:
    (vault / rel).write_text(text, encoding="utf-8")
    start = time.process_time()
    svc.sync()
    return time.process_time() - start


def test_a_note_of_unclosed_links_indexes_like_a_plain_note(empty_vault):
    """The attack: a 100 KB note of `[a](` (60 s to index before, and the daemon blocked)."""
    svc = make_service(empty_vault)
    try:
        plain = _fill("The quick brown fox jumps over the lazy dog, [[Linked]] #tag.\n", 100_000)
        attack = _fill("[a](", 100_000)
        t_plain = min(_index_time(empty_vault, svc, f"STM/plain {i}.md", plain + str(i)) for i in range(2))
        t_attack = min(_index_time(empty_vault, svc, f"STM/attack {i}.md", attack + str(i)) for i in range(2))
        indexed = {r["path"] for r in svc.store.query("SELECT path FROM notes")}
    finally:
        svc.close()
    assert {"STM/attack 0.md", "STM/attack 1.md"} <= indexed
    assert t_attack < 5 * max(t_plain, 0.05), (t_attack, t_plain)
