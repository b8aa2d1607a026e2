"""Reading notes: encodings, dates, typed owned fields, bad input (invariant 6), links and tags."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from vault_sync.note import parse_note


def read(tmp_path, data: bytes | str, name: str = "STM/My note.md"):
    """Write the note to a real file and parse what is on disk."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return parse_note(name, path.read_bytes())


def causes(note) -> list[str]:
    return [p.cause for p in note.problems]


MEMORY = """---
id: 7d4f0c2e-4f1b-4a52-9a3e-0c8f5d1e2b11
tags: [security, jwt]
created: 2026-11-21T23:30:00Z
last_used: 2026-11-21T23:30:00Z
use_count: 1
strength: 1.0
status: active
decay_score: 0.944
review_priority: 0.0
mine: {nested: [1, 2]}
---
The auth service signs JWTs with RS256 and rotates keys every 90 days.
"""


# ---------------------------------------------------------------- encodings and typed fields


@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_memory_note_fields(tmp_path, bom, nl):
    data = ("\ufeff" if bom else "") + MEMORY.replace("\n", nl)
    n = read(tmp_path, data)
    assert n.problems == [] and n.writable
    assert n.bom is bom and n.has_frontmatter
    f = n.fields
    assert f.id == "7d4f0c2e-4f1b-4a52-9a3e-0c8f5d1e2b11"
    assert f.tags == ["security", "jwt"]
    assert f.created == f.last_used == datetime(2026, 11, 21, 23, 30, tzinfo=timezone.utc)
    assert (f.use_count, f.strength, f.status, f.decay_score, f.review_priority) == (1, 1.0, "active", 0.944, 0.0)
    assert n.frontmatter["mine"] == {"nested": [1, 2]}
    assert n.body.startswith("The auth service")
    assert n.title == "My note"
    assert not n.text.startswith("\ufeff")
    assert n.checksum and n.size == len(data.encode("utf-8"))


def test_defaults_for_missing_keys(tmp_path):
    f = read(tmp_path, "just text").fields
    assert (f.id, f.tags, f.use_count, f.strength, f.status, f.decay_score, f.related) == (
        None,
        [],
        1,
        1.0,
        "active",
        None,
        [],
    )


LOCAL = datetime.now().astimezone().tzinfo


@pytest.mark.parametrize(
    "src,want",
    [
        ("2026-11-21", datetime(2026, 11, 21).astimezone()),
        ("'2026-11-21'", datetime(2026, 11, 21).astimezone()),
        ("2026-11-21T10:30:00", datetime(2026, 11, 21, 10, 30).astimezone()),
        ('"2026-11-21T10:30:00"', datetime(2026, 11, 21, 10, 30).astimezone()),
        ("2026-11-21T10:30", datetime(2026, 11, 21, 10, 30).astimezone()),  # Obsidian's date & time property
        ("2026-11-21 10:30:00", datetime(2026, 11, 21, 10, 30).astimezone()),
        ("2026-11-21T10:30:00Z", datetime(2026, 11, 21, 10, 30, tzinfo=timezone.utc)),
        ("'2026-11-21T10:30:00Z'", datetime(2026, 11, 21, 10, 30, tzinfo=timezone.utc)),
        ("2026-11-21T10:30:00+01:00", datetime(2026, 11, 21, 9, 30, tzinfo=timezone.utc)),
        ('"2026-11-21T10:30:00+01:00"', datetime(2026, 11, 21, 9, 30, tzinfo=timezone.utc)),
        ("2026-11-21T10:30:00.5-05:00", datetime(2026, 11, 21, 15, 30, 0, 500000, tzinfo=timezone.utc)),
    ],
)
def test_dates_in_every_form(tmp_path, src, want):
    n = read(tmp_path, f"---\nlast_used: {src}\ncreated: {src}\n---\n")
    assert n.problems == []
    assert n.fields.last_used == want and n.fields.last_used.tzinfo is not None
    assert n.fields.created == want


@pytest.mark.parametrize("src", ["yesterday", "2026-02-30", "'2026-13-01'", "12", "[2026-11-21]"])
def test_bad_dates_are_problems(tmp_path, src):
    n = read(tmp_path, f"---\nlast_used: {src}\n---\n")
    assert n.fields.last_used is None
    assert n.problems and not n.writable


def test_edge_of_calendar_dates_do_not_crash(tmp_path):
    n = read(tmp_path, "---\ncreated: 0001-01-01\nlast_used: 9999-12-31T23:59:59\n---\n")
    assert n.fields.created.year == 1 and n.fields.last_used.year == 9999


# ---------------------------------------------------------------- bad input: a safe reading and a problem


def test_malformed_yaml(tmp_path):
    n = read(tmp_path, "---\nid: [unclosed\ntags: a\n---\nBody [[link]]\n")
    assert not n.writable and n.frontmatter == {}
    assert any("malformed YAML" in c for c in causes(n))
    assert [l.target for l in n.links] == ["link"]  # the body is still read


def test_unclosed_frontmatter(tmp_path):
    n = read(tmp_path, "---\nid: a\nno end here\n")
    assert not n.writable and "never closes" in causes(n)[0]


def test_non_utf8(tmp_path):
    n = read(tmp_path, b"---\nid: a\n---\ncaf\xe9\n")
    assert not n.writable and "UTF-8" in causes(n)[0]
    assert n.title == "My note" and n.text == ""


def test_empty_file(tmp_path):
    n = read(tmp_path, b"")
    assert not n.writable and causes(n) == ["empty note"]
    assert n.title == "My note"


def test_ten_megabyte_note(tmp_path):
    body = ("A line of prose with [[a link]] and #tag and `code` here.\n" * 180_000)[: 10 * 1024 * 1024]
    t = time.perf_counter()
    n = read(tmp_path, "---\nid: big\n---\n" + body)
    assert time.perf_counter() - t < 30
    assert n.fields.id == "big" and n.size > 10_000_000


@pytest.mark.parametrize("data", [b"\x00\x01\x02PNG\x00" * 100, b"---\nid: a\n---\ntext\x00more"])
def test_binary_with_nul_bytes(tmp_path, data):
    n = read(tmp_path, data)
    assert not n.writable and "binary" in causes(n)[0]


def test_use_count_lots(tmp_path):
    n = read(tmp_path, "---\nuse_count: lots\n---\n")
    assert n.fields.use_count == 1 and not n.writable
    assert "use_count" in causes(n)[0]


@pytest.mark.parametrize("src,want", [("7", 2.0), ("-1", 0.0), (".inf", 2.0)])
def test_strength_out_of_range_is_clamped_and_blocking(tmp_path, src, want):
    n = read(tmp_path, f"---\nstrength: {src}\n---\n")
    assert n.fields.strength == want
    assert not n.writable and "strength" in causes(n)[0]


@pytest.mark.parametrize("src", ["'high'", ".nan", "true", "[1]"])
def test_strength_not_a_number(tmp_path, src):
    n = read(tmp_path, f"---\nstrength: {src}\n---\n")
    assert n.fields.strength == 1.0 and not n.writable


def test_tags_as_a_string_is_two_tags_with_a_warning(tmp_path):
    n = read(tmp_path, '---\ntags: "a, b"\n---\n')
    assert n.fields.tags == ["a", "b"]
    assert len(n.problems) == 1 and not n.problems[0].blocking and n.writable


def test_related_as_a_string_keeps_note_names_with_spaces(tmp_path):
    n = read(tmp_path, '---\nrelated: "[[Note A]], [[Note B]]"\n---\n')
    assert n.fields.related == ["[[Note A]]", "[[Note B]]"]


def test_tag_list_with_an_empty_item_is_fine(tmp_path):
    n = read(tmp_path, "---\ntags:\n  - a\n  -\n  - '#b'\n---\n")
    assert n.fields.tags == ["a", "b"] and n.writable


def test_duplicate_keys_make_the_note_read_only_naming_the_key(tmp_path):
    n = read(tmp_path, "---\nid: a\nuse_count: 2\nid: b\n---\n")
    assert not n.writable and "duplicate" in causes(n)[0] and "id" in causes(n)[0]


def test_yaml_bomb_refused_quickly(tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]")
    lines.append("tags: *i")
    t = time.perf_counter()
    n = read(tmp_path, "---\n" + "\n".join(lines) + "\n---\n")
    assert time.perf_counter() - t < 1
    assert not n.writable and "bomb" in causes(n)[0] and n.fields.tags == []


def test_small_bomb_under_alias_limits_still_refused(tmp_path):
    # few aliases, but each doubles the size: 2^40 values once expanded
    lines = ["a0: &a0 [x, x]"] + [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 41)]
    t = time.perf_counter()
    n = read(tmp_path, "---\n" + "\n".join(lines) + "\ntags: *a40\n---\n")
    assert time.perf_counter() - t < 1 and not n.writable


def test_recursive_yaml_alias_makes_the_note_read_only(tmp_path):
    n = read(tmp_path, "---\ntags: &t [a, *t]\n---\n")
    assert not n.writable


@pytest.mark.parametrize(
    "src",
    [
        "[" * 10000 + "]" * 10000,
        "[" * 10000,
        "{a: " * 5000 + "1" + "}" * 5000,
        "- " * 5000 + "x",
        "\n".join(" " * i + f"k{i}:" for i in range(300)) + " 1",
    ],
)
def test_deeply_nested_yaml(tmp_path, src):
    n = read(tmp_path, f"---\ntags: {src}\n---\n")
    assert not n.writable and n.problems


def test_huge_frontmatter(tmp_path):
    n = read(tmp_path, "---\n" + "".join(f"k{i}: {'x' * 60}\n" for i in range(2000)) + "---\nbody")
    assert not n.writable and "too large" in causes(n)[0]


@pytest.mark.parametrize("fm", ["- a\n- b", "just text", "42"])
def test_frontmatter_not_a_mapping(tmp_path, fm):
    n = read(tmp_path, f"---\n{fm}\n---\n")
    assert not n.writable and n.frontmatter == {}


@pytest.mark.parametrize(
    "src",
    ["id: [a, b]", "id: ''", "status: draft", "use_count: 2.5", "use_count: -3", "review_count: many", "tags: {a: 1}"],
)
def test_other_invalid_owned_values_are_blocking(tmp_path, src):
    n = read(tmp_path, f"---\n{src}\n---\n")
    assert not n.writable


def test_bad_output_values_do_not_block(tmp_path):
    n = read(tmp_path, "---\ndecay_score: high\nreview_priority: 3\n---\n")
    assert n.writable and len(n.problems) == 2
    assert n.fields.decay_score is None and n.fields.review_priority == 1.0


def test_long_values_in_problem_messages_are_cut(tmp_path):
    n = read(tmp_path, f"---\nuse_count: {'x' * 5000}\n---\n")
    assert len(causes(n)[0]) < 200


def test_problem_messages_name_the_line(tmp_path):
    n = read(tmp_path, "---\nid: a\ntags: [x\nb: 1\n---\n")
    assert "line" in causes(n)[0]


# ---------------------------------------------------------------- title


@pytest.mark.parametrize(
    "body,want",
    [
        ("# Real Title\ntext", "Real Title"),
        ("intro\n\n# Later Title #\n", "Later Title"),
        ("# C#\n", "C#"),
        ("## Only H2\n#tag\n", "My note"),
        ("```\n# not a title\n```\n# Title\n", "Title"),
        ("#NotATitle\n", "My note"),
        ("# Title\r\nnext\r\n", "Title"),
    ],
)
def test_title_is_the_first_h1_outside_code_else_the_file_name(tmp_path, body, want):
    assert read(tmp_path, "---\nid: a\n---\n" + body).title == want


# ---------------------------------------------------------------- links


def links_of(tmp_path, body):
    return [(l.target, l.subpath, l.alias, l.kind, l.markdown) for l in read(tmp_path, body).links]


@pytest.mark.parametrize(
    "body,want",
    [
        ("[[a]]", [("a", "", "", "link", False)]),
        ("[[a|b]]", [("a", "", "b", "link", False)]),
        ("[[a#h]]", [("a", "#h", "", "heading", False)]),
        ("[[a#^blk]]", [("a", "#^blk", "", "block", False)]),
        ("![[a]]", [("a", "", "", "embed", False)]),
        ("[[folder/a]]", [("folder/a", "", "", "link", False)]),
        ("[[a.md|x]]", [("a", "", "x", "link", False)]),
        ("| [[a\\|b]] |", [("a", "", "b", "link", False)]),
        ("[[#Local heading]]", [("", "#Local heading", "", "heading", False)]),
        ("[t](STM/x%20y.md)", [("STM/x y", "", "t", "link", True)]),
        ("[t](<STM/x y.md>)", [("STM/x y", "", "t", "link", True)]),
        ('[t](STM/z.md#Part "title")', [("STM/z", "#Part", "t", "heading", True)]),
        ("[t](https://example.com/a.md) [m](mailto:x@y.z) [o](obsidian://open?vault=v)", []),
        # image embeds and links to any file are tracked: attachments resolve (docs/links.md)
        ("![img](pic.png)", [("pic.png", "", "img", "embed", True)]),
        ("[t](Note%20name)", [("Note name", "", "t", "link", True)]),
        ("https://example.com/page#frag", []),
    ],
)
def test_link_forms_parse_to_target_subpath_alias_and_kind(tmp_path, body, want):
    assert links_of(tmp_path, body) == want


@pytest.mark.parametrize(
    "body",
    [
        "```\n[[fenced]] #fenced\n```\n",
        "~~~python\n[[tilde]] #tilde\n~~~\n",
        "text `[[inline]] #inline` text\n",
        "text ``a ` [[double]] #double`` text\n",
        "para\n\n    [[indented]] #indented\n",
        "    [[indented at start]] #start\n",
        "- list\n\n  ```\n  [[in list fence]]\n  ```\n",
    ],
)
def test_links_and_tags_in_code_are_ignored(tmp_path, body):
    n = read(tmp_path, body + "[[outside]] #outside\n")
    assert [l.target for l in n.links] == ["outside"]
    assert n.inline_tags == ["outside"]


def test_unmatched_backtick_does_not_hide_later_paragraphs(tmp_path):
    n = read(tmp_path, "press the ` key\n\n[[seen]] #seen\n\nand ` again\n")
    assert [l.target for l in n.links] == ["seen"] and n.inline_tags == ["seen"]


def test_nested_list_is_not_code(tmp_path):
    n = read(tmp_path, "- item\n    - sub [[deep]] #deep\n")
    assert [l.target for l in n.links] == ["deep"] and n.inline_tags == ["deep"]


def test_inline_tags_found_and_lookalikes_ignored(tmp_path):
    n = read(
        tmp_path,
        "# Title\n## Heading #inheading\nText #a/b, #simple. #123 #1/2 #x-y_z #日本\n"
        "not#tag [go](#anchor) [[Note#heading]] https://x.org/#frag C# \\#escaped (#paren)\n",
    )
    assert n.inline_tags == ["inheading", "a/b", "simple", "x-y_z", "日本", "paren"]
    assert n.all_tags == ["inheading", "a/b", "simple", "x-y_z", "日本", "paren"]


def test_all_tags_merges_frontmatter_and_inline(tmp_path):
    n = read(tmp_path, "---\ntags: [a, b]\n---\n#b #c\n")
    assert n.all_tags == ["a", "b", "c"]


def test_pathological_backticks_stay_linear(tmp_path):
    t = time.perf_counter()
    n = read(tmp_path, "``x` " * 200_000 + "\n[[end]]")
    assert time.perf_counter() - t < 10
    assert [l.target for l in n.links] == ["end"]


# ---------------------------------------------------------------- the fast path without markdown-it

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_md_lines = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "",
                " ",
                "# Heading",
                "## H2",
                "---",
                "***",
                "===",
                "text [[a]] #t",
                "- item",
                "1. item",
                "> quote",
                "<div>",
                "| a | b |",
                "Title",
                "    indented",
                "\tindented",
                "  two",
                "\t- sub",
                "   three",
                ">     quoted code",
                "> # H",
                ">",
                " \t1",
                "-     listcode",
                "1.     x",
                "- >     y",
                "*\tz",
                ">1.",
                "1)",
                "+",
            ]
        ),
        st.text(st.sampled_from(" \t-#*=>ab1."), max_size=8),
    ),
    max_size=12,
)


@settings(max_examples=1500, deadline=None)
@given(lines=_md_lines, nl=st.sampled_from(["\n", "\r\n"]))
def test_fast_path_only_skips_notes_without_code(lines, nl):
    from vault_sync.codeblocks import block_parser as _block_parser
    from vault_sync.links import maybe_indented_code, strip_code

    text = nl.join(lines)
    if "`" in text or "~~~" in text or maybe_indented_code(text):
        return
    tokens = _block_parser().parse(text)
    assert not [t for t in tokens if t.type in ("fence", "code_block")], text
    assert strip_code(text) == text
