"""Recall by time: since/until on created, used_since on last use, applied
before ranking; checked against a brute-force reference and on a 10,000-note vault."""

from __future__ import annotations

import random
import time
from datetime import datetime, timedelta, timezone

import pytest
from conftest import FIXED_NOW, make_service

from vault_sync.errors import InvalidInput
from vault_sync.search import fts as ftsmod

WORDS = ["budget", "deploy", "python", "meeting", "invoice", "garden", "router", "cache"]


@pytest.fixture
def svc(empty_vault):
    s = make_service(empty_vault)
    yield s
    s.close()


def test_time_filters_match_a_brute_force_reference(svc):
    rng = random.Random(17)
    notes = []
    for i in range(50):
        created = FIXED_NOW - timedelta(days=rng.randint(0, 60), hours=rng.randint(0, 23))
        used = created + timedelta(days=rng.randint(0, 5))
        used = min(used, FIXED_NOW)
        w = rng.sample(WORDS, 2)
        text = f"Memory number {i} mentions {w[0]} and {w[1]} in passing"
        n = svc.create_memory(text, title=f"m{i}", created=created, last_used=used)
        notes.append((n["path"], created, used, set(w)))
    cases = [
        ({"since": "14d"}, lambda c, u: c >= FIXED_NOW - timedelta(days=14)),
        ({"until": "30d"}, lambda c, u: c <= FIXED_NOW - timedelta(days=30)),
        (
            {"since": "2026-10-01", "until": "2026-10-31T23:59:59Z"},
            lambda c, u: (
                datetime(2026, 10, 1, tzinfo=timezone.utc)
                <= c
                <= datetime(2026, 10, 31, 23, 59, 59, tzinfo=timezone.utc)
            ),
        ),
        ({"used_since": "1w"}, lambda c, u: u >= FIXED_NOW - timedelta(weeks=1)),
    ]
    for word in ("budget", "garden"):
        for args, keep in cases:
            expected = {p for p, c, u, ws in notes if word in ws and keep(c, u)}
            got = {r["path"] for r in svc.search(word, limit=200, blend_review=False, **args)["results"]}
            assert got == expected, (word, args)
            assert expected  # the case is not vacuous


def test_bad_time_values_are_clear_errors(svc):
    for bad in ("yesterday", "7x", "", "2026-13-45"):
        with pytest.raises(InvalidInput, match="ISO date"):
            svc.search("budget", since=bad)


def test_filter_finds_a_note_ranking_below_500_at_10000_notes(empty_vault):
    stm = empty_vault / "STM"
    old = datetime(2024, 3, 1, tzinfo=timezone.utc)
    for i in range(9_999):
        created = FIXED_NOW - timedelta(hours=i % 500)
        (stm / f"n{i:05d}.md").write_text(
            f"---\nid: id-{i}\ncreated: {created:%Y-%m-%dT%H:%M:%SZ}\nlast_used: {created:%Y-%m-%dT%H:%M:%SZ}\n"
            f"use_count: 3\nstrength: 1.0\nstatus: active\n---\n"
            f"Quarterly budget budget review {i}: the budget for team {i % 97} grew.\n",
            encoding="utf-8",
        )
    (stm / "target.md").write_text(
        f"---\nid: id-target\ncreated: {old:%Y-%m-%dT%H:%M:%SZ}\nlast_used: {old:%Y-%m-%dT%H:%M:%SZ}\n"
        "use_count: 1\nstrength: 1.0\nstatus: active\n---\n"
        "A long note about many things: travel plans, the office move, a new chair, lunch options, "
        "and at the very end a single word about the budget.\n",
        encoding="utf-8",
    )
    started = time.perf_counter()
    svc = make_service(empty_vault)
    try:
        row = svc.store.note("STM/target.md")
        unfiltered = [
            h.rowid for h in ftsmod.search(svc.store, "budget", ftsmod.make_filters(svc.engine), limit=10_000)
        ]
        assert len(unfiltered) == 10_000 and unfiltered.index(row["rowid"]) >= 500
        assert "STM/target.md" not in [r["path"] for r in svc.search("budget", limit=200)["results"]]
        found = svc.search("budget", limit=5, until="2025-01-01")["results"]
        assert [r["path"] for r in found] == ["STM/target.md"]
        assert (
            svc.search("budget", limit=5, since="2024-01-01", until="2024-12-31")["results"][0]["path"]
            == "STM/target.md"
        )
    finally:
        svc.close()
    assert time.perf_counter() - started < 60


def test_far_dates_are_fine(svc):
    svc.create_memory("A memory about the yearly budget review", created=FIXED_NOW)
    assert svc.search("budget", since="2999-01-01")["results"] == []
    assert len(svc.search("budget", until="2999-01-01")["results"]) == 1
    assert len(svc.search("budget", since="0001-01-02")["results"]) == 1
