"""Code blocks found without a full parse are the ones markdown-it finds, so the links and
tags extracted from a note are the same either way."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vault_sync.codeblocks import code_lines, parsed_code_lines
from vault_sync.links import _strip_inline_code, extract, extract_outside_code

PREFIXES = [
    "",
    "",
    "",
    " ",
    "  ",
    "   ",
    "    ",
    "\t",
    "> ",
    ">",
    ">> ",
    "- ",
    "* ",
    "1. ",
    "2) ",
    "  - ",
    "> - ",
    "-   ",
    "   > ",
    "10. ",
    "- ",
    "1. ",
    "-     ",
    "  ",
    "   - ",
    "- - ",
    "1) ",
]
CONTENTS = [
    "```",
    "```",
    "````",
    "~~~",
    "~~~~",
    "``` py",
    "```a`b",
    "~~~ x`y",
    "`````",
    "``` ",
    "~~~~~~",
    "[[a]] #t",
    "`[[b]]` #u",
    "``c ` [[d]]`` #e",
    "` x",
    "text [[f]]",
    "plain #g",
    "",
    "",
    "",
    "<div>",
    "<!-- [[h]]",
    "-->",
    "</div>",
    "<pre>",
    "</pre>",
    "[x]: /url",
    "[[i]]: j",
    "[y](z) #k",
    "# H [[l]]",
    "---",
    "===",
    "***",
    "- item",
    "1. item",
    "code [[m]] #n",
    "  ```",
    "   ~~~",
]

line = st.builds(lambda p, c: p + c, st.sampled_from(PREFIXES), st.sampled_from(CONTENTS))
documents = st.builds(
    lambda ls, nl, end: nl.join(ls) + end,
    st.lists(line, max_size=16),
    st.sampled_from(["\n", "\n", "\r\n"]),
    st.sampled_from(["", "\n"]),
)


def _covered(text: str, ranges: list[tuple[int, int]]) -> set[int]:
    """The lines with text in code blocks (whether a block's blank edge is counted changes nothing)."""
    lines = text.split("\n")
    return {i for a, b in ranges for i in range(a, min(b, len(lines))) if lines[i].strip(" \t\r")}


def _parsed_strip(text: str) -> str:
    lines = text.split("\n")
    for start, end in parsed_code_lines(text):
        for i in range(start, min(end, len(lines))):
            lines[i] = ""
    out = "\n".join(lines)
    return _strip_inline_code(out) if "`" in out else out


@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=documents)
@example(text="- a\n```\n\nfoo\n```\n[[x]]\n")
@example(text="> ```\n> [[a]]\n```\n[[b]]\n```\n")
@example(text="<div>\n```\n[[x]]\n</div>\n")
@example(text="[x]: /u\n    [[code]]\n")
@example(text="para\n===\n    [[code]]\n")
@example(text="1. Install:\n\n   ```\n   [[no]]\n   ```\n2. Then [[yes]]\n\n- a\n  ```\n- b [[c]]\n")
@example(text="> " * 30 + "```\n" + "> " * 30 + "[[x]]\n\nend\n")  # deeper than markdown-it nests
@example(text="".join("  " * i + "- a\n" for i in range(40)) + "  " * 40 + "    [[x]]\n")
def test_code_blocks_match_the_full_parse(text):
    assert _covered(text, code_lines(text)) == _covered(text, parsed_code_lines(text)), repr(text)
    links, tags, h1 = extract(text)
    assert (links, tags, h1) == extract_outside_code(_parsed_strip(text))


def test_a_code_heavy_note_parses_only_its_quote():
    text = "# T\n\n```py\n# [[no]]\n```\n\nUse `[[no]]` or [[yes]] #tag\n\n> quoted\n\nafter\n\n    code [[no]]\n"
    assert code_lines(text) == parsed_code_lines(text) == [(2, 5), (12, 13)]
    links, tags, _ = extract(text)
    assert [l.target for l in links] == ["yes"] and tags == ["tag"]


@settings(max_examples=3000, deadline=None)
@given(parts=st.lists(st.sampled_from(["`", "`", "a", " ", "\n", "\n\n", " \t\n", "\r\n", "[[x]]", "#t"]), max_size=40))
def test_single_backtick_spans_match_the_general_rule(parts):
    from vault_sync.links import _strip_code_spans

    text = "".join(parts).replace("``", "` `")  # the fast path's domain: single backticks only
    assert _strip_inline_code(text) == _strip_code_spans(text)
