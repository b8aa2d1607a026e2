"""Surgical frontmatter patch (invariant 2): property tests over generated notes, plus examples.

The generator builds a note entry by entry and remembers which lines each key occupies, so
the checks below do not rely on the patcher's own idea of where a key starts and ends.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from vault_sync.dates import parse_datetime
from vault_sync.edit import patch_bytes, patch_file
from vault_sync.patch import REMOVE, PatchError, patch_frontmatter

LOADER = yaml.CSafeLoader
OWNED = (
    "id",
    "tags",
    "created",
    "last_used",
    "use_count",
    "strength",
    "status",
    "decay_score",
    "review_priority",
    "review_count",
    "cross_domain_count",
    "promoted_at",
    "archived_at",
    "related",
)
LIST_KEYS = ("tags", "related")
BOM = "\ufeff"


def load(yaml_text: str):
    return yaml.load(yaml_text, Loader=LOADER)


def split_note(text: str) -> tuple[str, str, str]:
    """(opening+yaml, closing line, body) of a note that has frontmatter."""
    m = re.match(r"---\r?\n(.*?)(^---\r?\n?)", text, re.S | re.M)
    assert m, text
    return text[: m.start(2)], m.group(2), text[m.end() :]


def lines_of(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+", text)


# ---------------------------------------------------------------- generated notes

_word_chars = st.characters(categories=("L", "N"), max_codepoint=0x2FFF)
_text_chars = st.characters(
    categories=("L", "N", "P", "S", "Zs"), max_codepoint=0x2FFF, exclude_characters="\x85\u2028\u2029"
)
words = st.text(_word_chars, min_size=1, max_size=8)
free_text = st.text(_text_chars, min_size=0, max_size=20)


def plain_ok(s: str, flow: bool = False) -> bool:
    if not s or s != s.strip() or " #" in s or s.startswith("#"):
        return False
    try:
        got = load(f"k: [{s}]" if flow else f"k: {s}")
    except yaml.YAMLError:
        return False
    return isinstance(got, dict) and got.get("k") == ([s] if flow else s)


@st.composite
def yaml_string(draw, flow: bool = False) -> str:
    """A string value in one of YAML's three quoting styles, as a person might write it."""
    s = draw(
        st.one_of(
            words,
            st.builds(lambda a, b: f"{a} {b}", words, words),
            free_text,
            st.sampled_from(["it's", 'say "hi"', "a # not a comment", "50%", "C#", "[[Note]]", "x: y"]),
        )
    )
    style = draw(st.sampled_from(["plain", "single", "double"]))
    if style == "plain" and plain_ok(s, flow):
        return s
    if style == "single":
        return "'" + s.replace("'", "''") + "'"
    return json.dumps(s, ensure_ascii=False)


@st.composite
def scalar_src(draw, flow: bool = False) -> str:
    return draw(
        st.one_of(
            st.integers(-(10**6), 10**6).map(str),
            st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: repr(round(f, 4))),
            st.sampled_from(
                [
                    "true",
                    "false",
                    "null",
                    "~",
                    "2026-11-21",
                    "2026-11-21T10:30:00Z",
                    "2026-11-21T10:30:00+01:00",
                    "2026-11-21 10:30:00",
                ]
            ),
            yaml_string(flow),
        )
    )


@dataclass
class Entry:
    key: str
    lines: list[str]  # without line endings
    comment: str  # a comment after the value on the key line, "" if none
    is_list: bool


comment = st.builds(lambda pad, t: f"{' ' * pad}# {t}".rstrip(), st.integers(1, 4), free_text)


@st.composite
def entry(draw, key: str) -> Entry:
    kind = draw(
        st.sampled_from(
            ["list_flow", "list_block"]
            if key in LIST_KEYS
            else ["scalar", "scalar", "scalar", "empty"]
            + (["list_flow", "list_block", "map"] if key not in OWNED else [])
        )
    )
    gap = draw(st.sampled_from([" ", " ", "  "]))
    note = draw(st.one_of(st.none(), comment))
    c = note or ""
    if kind == "scalar":
        return Entry(key, [f"{key}:{gap}{draw(scalar_src())}{c}"], c, False)
    if kind == "empty":
        return Entry(key, [f"{key}:{c}"], c, False)
    items = draw(st.lists(st.one_of(yaml_string(), st.integers(0, 99).map(str)), max_size=4))
    if kind == "list_flow":
        items = draw(st.lists(yaml_string(flow=True), max_size=4))
        return Entry(key, [f"{key}:{gap}[{', '.join(items)}]{c}"], c, True)
    indent = draw(st.sampled_from(["", "  ", "    "]))
    if kind == "list_block":
        if not items:
            return Entry(key, [f"{key}:{gap}[]{c}"], c, True)
        return Entry(key, [f"{key}:{c}"] + [f"{indent}- {v}" for v in items], c, True)
    sub = draw(
        st.lists(words.filter(lambda w: plain_ok(w) and load(f"{w}: 1") == {w: 1}), min_size=1, max_size=3, unique=True)
    )
    ind = indent or "  "
    body = [f"{ind}{k}: {draw(scalar_src())}" for k in sub]
    if draw(st.booleans()):
        body.append(f"{ind}nested:")
        body += [f"{ind}  - {draw(yaml_string())}"]
    return Entry(key, [f"{key}:{c}"] + body, "", False)  # a map replaced by a value: its comment goes too


person_keys = st.one_of(
    st.sampled_from(
        ["title", "aliases", "project", "Author Name", "cssclasses", "x-y", "Überschrift", "日付", "source"]
    ),
    words,
).filter(lambda k: k not in OWNED and plain_ok(k) and load(f"{k}: 1") == {k: 1})


@st.composite
def note_text(draw, with_frontmatter: bool = True):
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    owned = draw(st.lists(st.sampled_from(OWNED), unique=True, max_size=8))
    mine = draw(st.lists(person_keys, unique=True, max_size=5))
    keys = draw(st.permutations(owned + mine))
    entries: list[Entry] = []
    raw: list[tuple[str | None, str]] = []  # (key owning the line or None, line)
    for key in keys:
        if draw(st.booleans()):
            raw.append((None, draw(st.sampled_from(["", "# a comment line", "#", "# tags: [x]"]))))
        e = draw(entry(key))
        entries.append(e)
        raw += [(key, ln) for ln in e.lines]
    if draw(st.booleans()):
        raw.append((None, "# trailing comment"))
    body_lines = draw(
        st.lists(
            st.one_of(
                free_text, st.sampled_from(["---", "tags: [fake]", "# Heading", "- item", "```", "...", "id: not-this"])
            ),
            max_size=6,
        )
    )
    body = nl.join(body_lines)
    if draw(st.booleans()):
        body += nl
    if not with_frontmatter:
        assume(not body.startswith("---"))
        return body, [], [], nl
    text = "---" + nl + "".join(line + nl for _, line in raw) + "---" + nl + body
    return text, raw, entries, nl


def owned_value(key: str):
    if key in LIST_KEYS:
        item = st.one_of(
            st.text(_word_chars, min_size=1, max_size=10),
            st.builds(lambda w: f"[[{w}]]", st.text(_word_chars, min_size=1, max_size=10)),
            st.sampled_from(["[[Note]]", "[[folder/Note|alias]]", "a, b", "it's", "#x", "yes", "1.5"]),
        )
        return st.lists(item, max_size=4)
    if key in ("use_count", "review_count", "cross_domain_count"):
        return st.integers(0, 10**6)
    if key in ("strength", "decay_score", "review_priority"):
        return st.floats(0, 1e6, allow_nan=False, allow_infinity=False)
    if key in ("created", "last_used", "promoted_at", "archived_at"):
        return st.datetimes(
            min_value=datetime(2000, 1, 1),
            max_value=datetime(2100, 1, 1),
            timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=1)), timezone(timedelta(hours=-7))]),
        )
    if key == "status":
        return st.sampled_from(["active", "promoted", "archived"])
    return st.one_of(st.uuids().map(str), st.text(_text_chars, min_size=1, max_size=12))  # id


@st.composite
def updates_for(draw, present: list[str]):
    chosen = draw(st.lists(st.sampled_from(OWNED), unique=True, min_size=1, max_size=6))
    out = {}
    for key in chosen:
        if key in present and draw(st.integers(0, 4)) == 0:
            out[key] = REMOVE
        else:
            out[key] = draw(owned_value(key))
    return out


def same_value(got, want) -> bool:
    if isinstance(want, datetime):
        g = parse_datetime(got)
        return g is not None and abs((g - want).total_seconds()) < 1
    if isinstance(want, float):
        return (
            isinstance(got, (int, float))
            and not isinstance(got, bool)
            and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)
        )
    return got == want and type(got) is type(want)


def check_patch(text: str, raw, entries, nl: str, updates: dict) -> str:
    before = load(split_note(text)[0].split(nl, 1)[1]) or {}
    result = patch_frontmatter(text, updates)
    head, close, body = split_note(result)
    o_head, o_close, o_body = split_note(text)
    # the body and the closing line, byte for byte
    assert body == o_body
    assert close == o_close
    after = load(head.split(nl, 1)[1]) or {}
    # patched keys read back as set; removed ones are gone
    for key, value in updates.items():
        if value is REMOVE:
            assert key not in after
        else:
            assert key in after and same_value(after[key], value), (key, after.get(key), value)
    # every other key reads back equal
    for key in set(before) | set(after):
        if key not in updates:
            assert key in before and key in after and before[key] == after[key], key
    # every line outside the patched entries is unchanged and in order
    patched = set(updates)
    keep = [line + nl for owner, line in raw if owner not in patched]
    new_lines = lines_of(head)[1:]  # without the opening '---'
    it = iter(new_lines)
    extra = []
    for want in keep:
        for got in it:
            if got == want:
                break
            extra.append(got)
        else:
            pytest.fail(f"line {want!r} lost or changed")
    extra += list(it)
    # the lines that are new all belong to patched keys: a key line or a list item
    for line in extra:
        assert re.match(r"(?:%s)[ \t]*:|[ \t]*- " % "|".join(map(re.escape, patched)), line), line
    # line endings kept
    assert all(line.endswith(nl) and (nl == "\r\n" or not line.endswith("\r\n")) for line in lines_of(head + close))
    # a comment after a value that was replaced by a value of the same shape stays on its line
    for e in entries:
        v = updates.get(e.key)
        if e.comment and v is not None and v is not REMOVE and isinstance(v, list) == e.is_list:
            key_line = next(ln for ln in new_lines if ln.startswith(e.key + ":"))
            assert key_line.rstrip("\r\n").endswith(e.comment), (key_line, e.comment)
    return result


PROPS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


def draw_patch_case(data):
    """A note whose frontmatter YAML itself accepts, and updates for its keys."""
    text, raw, entries, nl = data.draw(note_text())
    try:
        load(split_note(text)[0].split(nl, 1)[1])
    except yaml.YAMLError:
        assume(False)  # the generator made something YAML itself rejects
    updates = data.draw(updates_for([e.key for e in entries]))
    return text, raw, entries, nl, updates


@PROPS
@given(data=st.data())
def test_patch_changes_only_patched_lines(data):
    text, raw, entries, nl, updates = draw_patch_case(data)
    check_patch(text, raw, entries, nl, updates)


@PROPS
@given(data=st.data())
def test_patch_twice_is_stable(data):
    """Patching again with the same values changes nothing (no echo, no drift)."""
    text, raw, entries, nl, updates = draw_patch_case(data)
    once = patch_frontmatter(text, updates)
    assert patch_frontmatter(once, updates) == once


@PROPS
@given(data=st.data())
def test_note_without_frontmatter_gets_a_block(data):
    body, _, _, nl = data.draw(note_text(with_frontmatter=False))
    updates = {k: v for k, v in data.draw(updates_for([])).items() if v is not REMOVE}
    result = patch_frontmatter(body, updates)
    head, close, rest = split_note(result)
    assert rest == body
    nl = nl if "\n" in body else "\n"  # a body without lines gets LF
    assert close == "---" + nl
    after = load(head.split(nl, 1)[1])
    assert set(after) == set(updates)
    for key, value in updates.items():
        assert same_value(after[key], value)


@PROPS
@given(data=st.data(), bom=st.booleans())
def test_bom_is_kept_through_bytes_and_file_writes(tmp_path_factory, data, bom):
    text, raw, entries, nl, updates = draw_patch_case(data)
    raw_bytes = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    out = patch_bytes(raw_bytes, updates)
    assert out == (b"\xef\xbb\xbf" if bom else b"") + patch_frontmatter(text, updates).encode("utf-8")
    path = tmp_path_factory.mktemp("bom") / "n.md"
    path.write_bytes(raw_bytes)
    res = patch_file(path, raw_bytes, updates)
    assert path.read_bytes() == out
    assert res.written == (out != raw_bytes)


# ---------------------------------------------------------------- examples


def test_decay_score_with_trailing_comment_changes_one_line():
    text = (
        "---\nid: 7d4f\nuse_count: 6\nlast_used: 2026-11-18T12:00:00Z\n"
        "decay_score: 0.5   # a comment\nreview_priority: 0.0\n---\nBody.\n"
    )
    out = patch_frontmatter(text, {"decay_score": 1.846, "review_priority": 0.0})
    a, b = text.splitlines(keepends=True), out.splitlines(keepends=True)
    assert len(a) == len(b)
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    assert diff == [("decay_score: 0.5   # a comment\n", "decay_score: 1.846   # a comment\n")]


def test_flow_list_style_kept():
    text = "---\ntags: [a, b]  # mine\ntitle: x\n---\n"
    assert patch_frontmatter(text, {"tags": ["a", "b", "c d"]}) == "---\ntags: [a, b, c d]  # mine\ntitle: x\n---\n"


def test_flow_list_spread_over_lines_stays_flow():
    text = "---\ntags: [a,\n  b]\ntitle: x\n---\n"
    assert patch_frontmatter(text, {"tags": ["c"]}) == "---\ntags: [c]\ntitle: x\n---\n"


@pytest.mark.parametrize("indent", ["", "  ", "    "])
def test_block_list_indentation_and_dash_style_kept(indent):
    text = f"---\ntags:\n{indent}-   a\n{indent}-   b\nstatus: active\n---\n"
    out = patch_frontmatter(text, {"tags": ["x", "y", "z"]})
    assert out == f"---\ntags:\n{indent}-   x\n{indent}-   y\n{indent}-   z\nstatus: active\n---\n"


def test_new_list_follows_the_notes_list_style():
    text = "---\naliases:\n- one\n---\n"
    assert patch_frontmatter(text, {"tags": ["a"]}) == "---\naliases:\n- one\ntags:\n- a\n---\n"


@pytest.mark.parametrize(
    "src,value,want",
    [
        ("status: 'active'", "promoted", "status: 'promoted'"),
        ('status: "active"', "promoted", 'status: "promoted"'),
        ("status: active", "promoted", "status: promoted"),
        ("id: 'x'", "it's", "id: 'it''s'"),
        ('id: "x"', 'say "hi"', 'id: "say \\"hi\\""'),
        ("id: x", "yes", 'id: "yes"'),  # a plain yes would read back as a boolean
        ("id: x", "2026-11-21", 'id: "2026-11-21"'),
        ("id: 'x' # c", "a # b", "id: 'a # b' # c"),
        ("id: 'it''s #x'  # c", "y", "id: 'y'  # c"),
        ('id: "a\\" #b"  # c', "y", 'id: "y"  # c'),
    ],
)
def test_quote_style_kept(src, value, want):
    assert patch_frontmatter(f"---\n{src}\n---\n", {src.split(":")[0]: value}) == f"---\n{want}\n---\n"


def test_crlf_kept():
    text = "---\r\nid: a\r\ntags:\r\n  - x\r\n---\r\nLine one\r\nLine two\r\n"
    out = patch_frontmatter(text, {"tags": ["y", "z"], "use_count": 2})
    assert out == "---\r\nid: a\r\ntags:\r\n  - y\r\n  - z\r\nuse_count: 2\r\n---\r\nLine one\r\nLine two\r\n"
    assert "\n" not in out.replace("\r\n", "")


def test_bom_kept():
    data = b"\xef\xbb\xbf---\nid: a\n---\nbody"
    assert patch_bytes(data, {"use_count": 3}) == b"\xef\xbb\xbf---\nid: a\nuse_count: 3\n---\nbody"
    assert patch_bytes(b"\xef\xbb\xbfbody", {"id": "x"}) == b"\xef\xbb\xbf---\nid: x\n---\nbody"
    # and a caller that forgot to strip it still gets it in front
    assert patch_frontmatter("\ufeffbody", {"id": "x"}) == "\ufeff---\nid: x\n---\nbody"


def test_no_trailing_newline_kept():
    assert patch_frontmatter("---\nid: a\n---\nend", {"id": "b"}) == "---\nid: b\n---\nend"
    assert patch_frontmatter("---\nid: a\n---", {"id": "b"}) == "---\nid: b\n---"
    assert patch_frontmatter("no newline", {"id": "b"}) == "---\nid: b\n---\nno newline"
    assert patch_frontmatter("", {"id": "b"}) == "---\nid: b\n---\n"


def test_remove_key_and_its_items_only():
    text = "---\nid: a\ntags:\n  - x\n  - y\n# about status\nstatus: active\n---\n"
    assert patch_frontmatter(text, {"tags": REMOVE}) == "---\nid: a\n# about status\nstatus: active\n---\n"
    assert patch_frontmatter(text, {"nothing": REMOVE}) == text


def test_comment_inside_frontmatter_after_a_list_survives():
    text = "---\ntags:\n  - a\n  # the next key is mine\nmine: 1\n---\n"
    assert patch_frontmatter(text, {"tags": ["b"]}) == "---\ntags:\n  - b\n  # the next key is mine\nmine: 1\n---\n"


def test_dates_and_numbers_rendered_readably():
    out = patch_frontmatter(
        "---\n---\n",
        {
            "last_used": datetime(2026, 11, 21, 23, 30, tzinfo=timezone(timedelta(hours=1))),
            "created": date(2026, 11, 21),
            "strength": 1.0,
            "decay_score": 1e-20,
            "use_count": 3,
        },
    )
    assert out == (
        "---\nlast_used: 2026-11-21T22:30:00Z\ncreated: 2026-11-21\nstrength: 1.0\n"
        "decay_score: 1.0e-20\nuse_count: 3\n---\n"
    )


def test_persons_nan_and_odd_keys_do_not_block_a_patch():
    text = '---\nratio: .nan\nhttp://x: 1\n"quoted key": 2\n---\n'
    out = patch_frontmatter(text, {"use_count": 2})
    assert out == '---\nratio: .nan\nhttp://x: 1\n"quoted key": 2\nuse_count: 2\n---\n'


def test_unicode_line_separators_inside_values_are_not_line_breaks():
    text = '---\ntitle: "a\u2028b"\nid: "x\u2029y"  # c\n---\n'
    out = patch_frontmatter(text, {"id": "b"})
    assert out == '---\ntitle: "a\u2028b"\nid: "b"  # c\n---\n'


@pytest.mark.parametrize(
    "text",
    [
        "---\nid: [unclosed\n---\n",  # malformed YAML
        "---\nid: a\n",  # never closes
        "---\n- a\n- b\n---\n",  # not a mapping
        "---\nid: a\nid: b\n---\n",  # duplicate keys
        "---\n{id: a, use_count: 1}\n---\n",  # a flow mapping we cannot edit line by line
        "---\na: &x [1, 2]\nb: *x\nid: &i z\nc: *i\n---\n",  # an anchor on an owned key used elsewhere
    ],
)
def test_refuses_what_it_cannot_patch_safely(text):
    with pytest.raises(PatchError):
        patch_frontmatter(text, {"id": "new", "use_count": 2})


def test_patch_file_keeps_a_persons_edit_made_in_between(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(b"---\nid: a\ndecay_score: 0.5\n---\nold body\n")
    seen = p.read_bytes()
    p.write_bytes(b"---\nid: a\ndecay_score: 0.5\nmine: yes\n---\nnew body typed meanwhile\n")
    res = patch_file(p, seen, {"decay_score": 0.25})
    assert res.written and res.retried
    assert p.read_bytes() == b"---\nid: a\ndecay_score: 0.25\nmine: yes\n---\nnew body typed meanwhile\n"


@PROPS
@given(data=st.data())
def test_fast_loader_reads_exactly_what_csafeloader_reads(data):
    """vault_sync's loader shortcuts common scalars; the results must equal plain LibYAML's."""
    from vault_sync.fmblock import load_yaml

    text, raw, entries, nl = data.draw(note_text())
    yaml_text = split_note(text)[0].split(nl, 1)[1]
    yaml_text += data.draw(
        st.sampled_from(
            [
                "",
                "n: 007\n",
                "n: 1_000\n",
                "n: 0x1F\n",
                "n: 1:30\n",
                "f: 1e3\n",
                "f: 1.5e+3\n",
                "f: -.inf\n",
                "f: 1_0.5\n",
                "b: Yes\n",
                "z: ~\n",
                "s: !!str 5\n",
            ]
        )
    )
    try:
        want = load(yaml_text)
    except yaml.YAMLError:
        assume(False)
    assert load_yaml(yaml_text) == want
