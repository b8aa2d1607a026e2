"""pin / unpin (issue 37, item 3): a pinned memory keeps its score, gets no due dates, never
enters the review queue and is never archived; pin writes only its own lines, unpin brings
the dates back, and unpin with pin's `prior` gives back the note's bytes exactly."""

from __future__ import annotations

import difflib
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from conftest import FIXED_NOW, make_service

from vault_sync.due import due_dates
from vault_sync.errors import InvalidInput, NotFound, WrongState
from vault_sync.service import MemoryService
from vault_sync.settings import load_settings

NOTE = """---
id: {id}
tags: [travel]   # the person's comment
created: 2026-11-01T09:00:00Z
last_used: {last_used}
use_count: 1
strength: 1.0
status: active
mood: "calm"
decay_score: 0.250
review_priority: 0.9
review_on: 2026-11-05
archive_on: 2027-01-20
---
The {name} memory: the passport is in the blue folder.
"""


def _write(vault: Path, name: str, days: float, now: datetime = FIXED_NOW) -> Path:
    path = vault / "STM" / f"{name}.md"
    last = (now - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ident = f"{abs(hash(name)) % 10**8:08d}-0000-4000-8000-000000000000"
    path.write_text(NOTE.format(id=ident, last_used=last, name=name), encoding="utf-8", newline="")
    return path


def _keys(path: Path) -> set[str]:
    head = path.read_text(encoding="utf-8").split("\n---", 1)[0]
    return {line.split(":", 1)[0] for line in head.splitlines()[1:] if ":" in line and not line.startswith(" ")}


@pytest.fixture
def svc(empty_vault):
    s = make_service(empty_vault)
    yield s
    s.close()


def test_pin_writes_its_key_and_the_kept_score_and_nothing_else(svc):
    path = _write(svc.layout.root, "Passport", 10)
    svc.sync()
    before = path.read_text(encoding="utf-8").splitlines()
    out = svc.pin("STM/Passport.md")
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [d for d in difflib.ndiff(before, after) if d[:2] in ("- ", "+ ")]
    # the score of its last use (1 use, strength 1: 1.0), no review priority, no due dates
    assert sorted(changed) == sorted(
        [
            "- decay_score: 0.250",
            "+ decay_score: 1.0",
            "- review_priority: 0.9",
            "+ review_priority: 0.0",
            "- review_on: 2026-11-05",
            "- archive_on: 2027-01-20",
            "+ pinned: true",
        ]
    )
    assert out["changed"] is True and out["pinned"] is True
    assert out["note"]["pinned"] is True and out["note"]["state"] == "pinned" and out["note"]["score"] == 1.0
    assert out["prior"]["decay_score"] == 0.25 and out["prior"]["archive_on"] == "2027-01-20"
    assert svc.store.note("STM/Passport.md")["pinned"] == 1  # the index follows the write
    again = svc.pin("STM/Passport.md")
    assert again["changed"] is False and path.read_text(encoding="utf-8").splitlines() == after


def test_unpin_brings_the_due_dates_back_and_the_memory_ages_from_its_last_use(svc):
    path = _write(svc.layout.root, "Locker", 6)
    svc.sync()
    svc.pin("STM/Locker.md")
    assert not {"review_on", "archive_on"} & _keys(path)
    out = svc.unpin("STM/Locker.md")
    assert out["changed"] is True and out["note"]["pinned"] is False
    assert "pinned" not in _keys(path)
    due = due_dates(svc.params, 1, 1.0, FIXED_NOW - timedelta(days=6))
    text = path.read_text(encoding="utf-8")
    assert f"review_on: {due['review_on']}" in text and f"archive_on: {due['archive_on']}" in text
    assert out["note"]["score"] < 0.35  # six days unused: the live score again
    assert svc.unpin("STM/Locker.md")["changed"] is False


def test_unpin_with_the_prior_of_pin_gives_back_the_bytes(svc):
    path = _write(svc.layout.root, "Keys", 10)
    svc.sync()
    original = path.read_bytes()
    prior = svc.pin("Keys")["prior"]
    assert path.read_bytes() != original
    svc.unpin("Keys", prior=prior)
    assert path.read_bytes() == original


def test_undoing_a_pin_after_a_use_is_refused_and_loses_nothing(svc):
    path = _write(svc.layout.root, "Wallet", 10)
    svc.sync()
    prior = svc.pin("Wallet")["prior"]
    svc.touch("Wallet")
    before = path.read_bytes()
    with pytest.raises(WrongState, match="used since it was pinned"):
        svc.unpin("Wallet", prior=prior)
    assert path.read_bytes() == before


def test_pin_refuses_what_is_not_a_live_memory(svc):
    root = svc.layout.root
    (root / "Own note.md").write_text("---\ntopic: x\n---\nMy own note.\n", encoding="utf-8")
    _write(root, "Old", 10)
    svc.sync()
    svc.archive("Old")
    archived = next((root / "Archive").glob("*.md"))
    before = archived.read_bytes()
    with pytest.raises(WrongState, match="restore it first"):
        svc.pin("Archive/Old.md")
    assert archived.read_bytes() == before
    with pytest.raises(WrongState):
        svc.pin("Own note.md")
    assert (root / "Own note.md").read_text(encoding="utf-8") == "---\ntopic: x\n---\nMy own note.\n"
    with pytest.raises(NotFound):
        svc.pin("no such memory")


def test_a_hand_pin_loses_its_due_dates_at_the_next_sweep_even_when_the_score_stands(svc):
    """Pinned by hand right after a use: the written score is already the kept one, so only
    the dates tell the sweep the note is due."""
    path = _write(svc.layout.root, "Fresh", 0)
    svc.sync()
    svc.touch("Fresh")  # score and dates written as of now
    text = path.read_text(encoding="utf-8")
    assert "review_on:" in text
    path.write_text(text.replace("status: active\n", "status: active\npinned: true\n"), encoding="utf-8")
    svc.sync()
    svc.sweep()
    text = path.read_text(encoding="utf-8")
    assert "pinned: true" in text and "review_on:" not in text and "archive_on:" not in text


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def test_a_pinned_memory_holds_through_a_year_of_daily_sweeps(empty_vault):
    """The daemon's real lifecycle (sweep, promote, gc) once a day for a year, on a clock a
    day at a time: the pinned memory keeps its score, is never archived, never queued for
    review and carries no due dates; its unpinned twin fades, is queued, then archived."""
    clock = _Clock(FIXED_NOW)
    settings = load_settings(vault=empty_vault, quiet_seconds=0, embeddings=False, auto_promote=True, auto_gc=True)
    svc = MemoryService(settings, clock=clock)
    try:
        _write(empty_vault, "Pinned twin", 0)
        _write(empty_vault, "Plain twin", 0)
        svc.sync()
        svc.pin("STM/Pinned twin.md")
        pinned = empty_vault / "STM" / "Pinned twin.md"
        kept = svc.note("STM/Pinned twin.md")["score"]
        plain_queued = plain_archived_on = None
        for day in range(1, 366):
            clock.now = FIXED_NOW + timedelta(days=day)
            svc.run_lifecycle()
            view = svc.note("STM/Pinned twin.md")
            assert view["score"] == kept and view["state"] == "pinned", day
            assert view["decay_score"] == kept, day  # the written score too
            queue = {m["path"] for m in svc.review(limit=100)}
            assert "STM/Pinned twin.md" not in queue, day
            text = pinned.read_text(encoding="utf-8")
            assert "review_on:" not in text and "archive_on:" not in text, day
            if plain_queued is None and "STM/Plain twin.md" in queue:
                plain_queued = day
            if plain_archived_on is None and not (empty_vault / "STM" / "Plain twin.md").exists():
                plain_archived_on = day
        assert pinned.exists() and not list((empty_vault / "Archive").glob("Pinned*"))
        assert plain_queued is not None, "the twin never entered the review queue: the check proves nothing"
        assert plain_archived_on is not None and plain_archived_on > plain_queued
        assert (empty_vault / "Archive" / "Plain twin.md").exists()
        assert svc.next_review_due() is None
    finally:
        svc.close()


def test_search_and_the_briefing_weigh_a_pinned_memory_by_its_kept_score(svc):
    """The briefing's own fast scoring (ops/brief.py) and search's weight read the kept score too."""
    from vault_sync.ops.brief import strongest

    _write(svc.layout.root, "Old pinned", 100)
    _write(svc.layout.root, "Old plain", 100)
    svc.sync()
    svc.pin("STM/Old pinned.md")
    scores = {m["path"]: m["score"] for m in strongest(svc.engine, FIXED_NOW, 10)[0]}
    assert scores["STM/Old pinned.md"] == pytest.approx(1.0)
    assert scores["STM/Old plain.md"] < 0.1
    hits = {h["path"]: h for h in svc.search("passport blue folder", limit=10)["results"]}
    assert hits["STM/Old pinned.md"]["parts"]["decay"] == pytest.approx(1.0)


@pytest.mark.parametrize("spelling", ["pinned: false", "pinned: no", "pinned: False   # the person's"])
def test_unpin_with_the_prior_gives_back_a_persons_own_pinned_false_line(svc, spelling):
    """A person wrote `pinned: false` in their own words: pin, then its undo, gives back that
    very line, not a note without the key."""
    path = _write(svc.layout.root, "Umbrella", 10)
    path.write_bytes(path.read_bytes().replace(b"status: active\n", f"status: active\n{spelling}\n".encode()))
    svc.sync()
    original = path.read_bytes()
    prior = svc.pin("Umbrella")["prior"]
    assert b"pinned: true" in path.read_bytes()
    svc.unpin("Umbrella", prior=prior)
    assert path.read_bytes() == original


def test_an_undo_whose_pinned_spelling_is_not_false_is_refused_and_loses_nothing(svc):
    path = _write(svc.layout.root, "Scarf", 10)
    path.write_bytes(path.read_bytes().replace(b"status: active\n", b"status: active\npinned: no\n"))
    svc.sync()
    prior = svc.pin("Scarf")["prior"]
    before = path.read_bytes()
    bad = {**prior, "as_written": {**prior["as_written"], "pinned": "yes"}}
    with pytest.raises(InvalidInput, match="spelling of false"):
        svc.unpin("Scarf", prior=bad)
    assert path.read_bytes() == before
