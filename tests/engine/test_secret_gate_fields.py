"""The secret gate runs on every stored field and sees through
obfuscation (split, re-cased, full-width, invisible characters), without refusing
ordinary text.

Every key is assembled at run time from a seeded RNG and split prefixes (see
`secret_corpora.py`), so no file holds something a secret scanner flags.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import string
import sys
import time
import unicodedata
from pathlib import Path

import pytest
from conftest import make_service
from fastmcp import Client
from secret_corpora import benign, keys, obfuscated
from test_secrets import NEGATIVE

from bridge.mcp_server import build_mcp
from vault_sync.errors import Refused
from vault_sync.ops.consolidate import consolidate
from vault_sync.secret_gate import _INVISIBLE, _INVISIBLE_SET, check_fields, normalise, scan

_RNG = random.Random(2323)
ALNUM = string.ascii_letters + string.digits


def _r(n: int) -> str:
    return "Q7z" + "".join(_RNG.choice(ALNUM) for _ in range(n - 3))


GH = "gh" + "p_" + _r(36)  # a plain GitHub token: valid tag characters
GH_LOWER = GH.lower()  # 40 characters of [a-z0-9_]: a valid relation type
GH_WIDE = "".join(chr(ord(c) + 0xFEE0) for c in GH)  # full-width
SK_SPLIT = " ".join(("s" + "k-" + _r(48))[i : i + 6] for i in range(0, 51, 6))  # split by spaces
SK_ZW = "\u200b".join("s" + "k-ant-api03-" + _r(60))  # a zero-width space between every letter

STM = "STM"
NOTE_A = "STM/Deploy notes for the bot.md"
NOTE_B = "STM/More deploy notes for the bot.md"


def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every file of the vault (dot-folders included)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _memory(i: int, body: str) -> str:
    return (
        f"---\nid: 7a1c0e52-1f7e-4c1b-9a55-00000000000{i}\ntags: [deploy]\ncreated: 2026-11-18T10:00:00+00:00\n"
        f"last_used: 2026-11-19T10:00:00+00:00\nuse_count: 2\nstrength: 1.0\nstatus: active\n---\n{body}\n"
    )


@pytest.fixture
def svc(vault):
    # Two short-term memories a person wrote by hand, one with a key in it: consolidating
    # them would copy the key into a new note.
    (vault / NOTE_A).write_text(_memory(1, f"The bot deploys with the key {SK_SPLIT} on Fridays."), encoding="utf-8")
    (vault / NOTE_B).write_text(_memory(2, "The bot deploys from the main branch after review."), encoding="utf-8")
    s = make_service(vault)
    yield s
    s.close()


def _assert_refusal(message: str, field: str, secret: str) -> None:
    assert "refused" in message and "secret" in message
    assert f"the {field} contains" in message, message
    squeezed = "".join(c for c in normalise(secret) if c.isalnum())
    for part in (secret, normalise(secret), squeezed[-10:], squeezed[4:14]):
        assert part not in message, "the refusal echoes the secret"


# (field named in the refusal, the secret, the engine call, the MCP tool and its arguments)
CASES = {
    "title": (
        "title",
        GH_WIDE,
        lambda s: s.save("The bot's deploy key, kept here for later use", title=f"Deploy key {GH_WIDE}"),
        ("save_memory", {"text": "The bot's deploy key, kept here for later use", "title": f"Deploy key {GH_WIDE}"}),
    ),
    "tags": (
        "tags (item 2)",
        GH,
        lambda s: s.save("The bot deploys on Fridays after review", tags=["deploy", GH]),
        ("save_memory", {"text": "The bot deploys on Fridays after review", "tags": ["deploy", GH]}),
    ),
    "relation type": (
        "relation type",
        GH_LOWER,
        lambda s: s.relate(NOTE_A, NOTE_B, GH_LOWER),
        ("create_relation", {"source": NOTE_A, "target": NOTE_B, "relation_type": GH_LOWER}),
    ),
    "consolidated text": (
        "consolidated text",
        SK_SPLIT,
        lambda s: s.consolidate([NOTE_A, NOTE_B], apply=True),
        ("consolidate_memories", {"refs": [NOTE_A, NOTE_B], "apply": True}),
    ),
    "text": (
        "text",
        SK_ZW,
        lambda s: s.save(f"The bot deploys with {SK_ZW} on Fridays"),
        ("save_memory", {"text": f"The bot deploys with {SK_ZW} on Fridays"}),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_field_is_refused_by_the_engine_and_nothing_changes(svc, vault, case):
    field, secret, engine_call, _ = CASES[case]
    before = snapshot(vault)
    with pytest.raises(Refused) as err:
        engine_call(svc)
    _assert_refusal(str(err.value), field, secret)
    assert snapshot(vault) == before


@pytest.mark.parametrize("case", list(CASES))
def test_each_field_is_refused_over_mcp_and_nothing_changes(svc, vault, case):
    field, secret, _, (tool, args) = CASES[case]
    before = snapshot(vault)

    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            return await c.call_tool(tool, args, raise_on_error=False)

    result = asyncio.run(go())
    assert result.is_error, result.content
    message = result.content[0].text
    assert message.startswith("refused:"), message
    _assert_refusal(message, field, secret)
    assert snapshot(vault) == before


def test_consolidate_title_is_refused(svc, vault):
    before = snapshot(vault)
    with pytest.raises(Refused) as err:
        consolidate(svc.engine, [NOTE_B, "STM/Staging runs Postgres 16.md"], apply=True, title=f"Deploy {GH_LOWER}")
    _assert_refusal(str(err.value), "consolidated title", GH_LOWER)
    assert snapshot(vault) == before


def test_archive_reason_is_refused(svc, vault):
    before = snapshot(vault)
    with pytest.raises(Refused) as err:
        svc.archive(NOTE_B, reason=f"superseded by {GH}")
    _assert_refusal(str(err.value), "reason", GH)
    assert snapshot(vault) == before


def test_the_same_fields_without_secrets_still_save(svc, vault):
    saved = svc.save(
        "The bot deploys on Fridays after review",
        tags=["deploy", "sk-learn", "token-bucket"],
        title="Deploy 550e8400-e29b-41d4-a716-446655440000",
    )
    assert saved["saved"] and saved["note"]["path"].startswith(f"{STM}/Deploy 550e8400")
    assert svc.relate(NOTE_A, NOTE_B, "depends_on")["added"]
    out = svc.consolidate([NOTE_B, saved["note"]["path"]], apply=True)
    assert out["applied"] and not out["errors"]


def test_check_fields_names_the_field_for_importers():
    meta = {"title": "Imported", "tags": ["a", "b"], "source": {"url": "https://example.org", "auth": SK_SPLIT}}
    with pytest.raises(Refused) as err:
        check_fields(meta)
    _assert_refusal(str(err.value), "source.auth", SK_SPLIT)
    with pytest.raises(Refused) as err:
        check_fields({"meta": {GH: "value"}})  # a mapping's key is stored too
    _assert_refusal(str(err.value), "meta key", GH)
    assert check_fields({"title": "Imported", "tags": ["a"], "count": 3, "when": None, "ok": True}) is None


def test_obfuscated_corpus_is_all_refused():
    corpus = obfuscated()
    assert len(corpus) == 60 * len(keys(random.Random(0))) and len({w for _, w, _ in corpus}) == 10
    missed, wrong_kind = [], []
    for kind, way, text in corpus:
        try:
            check_fields({"text": text})
        except Refused as exc:
            if kind not in str(exc):
                wrong_kind.append((kind, way, str(exc)))
        else:
            missed.append((kind, way))
    assert not missed, f"{len(missed)} of {len(corpus)} not refused: {missed[:10]}"
    assert not wrong_kind, wrong_kind[:5]


def test_benign_corpus_is_never_refused():
    corpus = benign() + [(f"test_secrets negative {i}", t) for i, t in enumerate(NEGATIVE)]
    refused = [(name, scan(text)) for name, text in corpus if scan(text)]
    assert not refused, refused
    assert len(corpus) > 190


def test_benign_prose_saves_through_the_engine(svc):
    saved = 0
    for name, text in benign():
        if name.startswith("prose") and len(text.split()) >= 3:  # the intake's word count (not CJK)
            assert svc.save(text, title=text.split(":")[0][:40], tags=["prose", "sk-learn"])["saved"], name
            saved += 1
    assert saved >= 30


def test_invisible_table_covers_every_format_character():
    cf = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert [hex(ord(c)) for c in cf if not _INVISIBLE.match(c) or c not in _INVISIBLE_SET] == []
    # the set (the fast check) and the pattern (the removal) hold the same characters
    assert {chr(c) for c in range(sys.maxunicode + 1) if _INVISIBLE.match(chr(c))} == _INVISIBLE_SET
    assert normalise("pass\u200bword \u202epolicy\u202c") == "password policy"


def test_normalise_keeps_lines_and_maps_full_width():
    assert normalise("ａ\u200bｂ\n\ufeffｃ\u00ad１") == "ab\nc1"
    text = f"line one\nline two\n{GH_WIDE}\n"
    assert [f.line for f in scan(text)] == [3]


def test_gate_is_fast_on_a_2kb_text():
    text = "".join(t for _, t in benign())[:2048]
    assert len(text) == 2048
    best = min(_per_call(text) for _ in range(5))
    # about 0.2 ms on a quiet machine; the bound is loose for a busy one, and still
    # catches a scan that turns quadratic or runs a regex alternation at every position
    assert best < 1e-3, f"{best * 1e3:.3f} ms per call"


def _per_call(text: str, n: int = 100) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        check_fields({"text": text})
    return (time.perf_counter() - t0) / n
