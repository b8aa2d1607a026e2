"""A pinned memory (`pinned: true`, written by a person) is never offered for review, never
archived by gc, and promoted only when asked (issue 37, item 3; what is built so far)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import FIXED_NOW, make_service

from vault_sync.ops.lifecycle import gc_candidates, promote_candidates


@pytest.fixture
def svc(empty_vault):
    s = make_service(empty_vault)
    yield s
    s.close()


def _pair(svc, name: str, use_count: int, days: float, created_days: float) -> tuple[str, str]:
    """Two memories alike but for `pinned`: (pinned path, unpinned path)."""
    when = FIXED_NOW - timedelta(days=days)
    paths = []
    for pinned in (True, False):
        view = svc.create_memory(
            f"{name} memory that is {'pinned' if pinned else 'not pinned'} by the person.",
            title=f"{name} {'pinned' if pinned else 'plain'}",
            use_count=use_count,
            created=FIXED_NOW - timedelta(days=created_days),
            last_used=when,
            extra={"pinned": True} if pinned else None,
        )
        paths.append(view["path"])
    return paths[0], paths[1]


@pytest.mark.parametrize("days", [8.0, 11.0, 14.0])
def test_a_pinned_memory_in_the_danger_zone_is_never_queued(svc, days):
    pinned, plain = _pair(svc, "Fading", 1, days, days + 1)
    queue = {m["path"] for m in svc.review(limit=100)}
    assert plain in queue, "the unpinned twin is in the danger zone: the check would prove nothing"
    assert pinned not in queue
    page = svc.review_page(limit=100, all_projects=True)
    assert pinned not in {m["path"] for m in page["items"]}


def test_the_next_review_date_ignores_pinned_memories(svc):
    _pair(svc, "Fresh", 1, 0.5, 1)
    with_both = svc.next_review_due()
    assert with_both is not None
    svc.archive(next(m["path"] for m in svc.recent(limit=10)["items"] if "plain" in m["path"]))
    assert svc.next_review_due() is None, "only the pinned memory is left: nothing will come due"


def test_a_pinned_memory_is_promoted_only_when_asked(svc):
    pinned, plain = _pair(svc, "Popular", 6, 0.2, 2)
    candidates = {c["path"] for c in promote_candidates(svc.engine)}
    assert plain in candidates and pinned not in candidates
    report = svc.promote_all()
    assert pinned not in {m["from"] for m in report.get("promoted", [])}
    assert (svc.layout.root / pinned).exists()
    moved = svc.promote(pinned)  # asked by name: promoted
    assert not (svc.layout.root / pinned).exists(), moved
    assert [m["from"] for m in moved["promoted"]] == [pinned] and moved["promoted"][0]["to"].startswith("LTM/")


def test_a_forgotten_pinned_memory_is_never_archived(svc):
    pinned, plain = _pair(svc, "Old", 1, 120, 121)
    gone = {c["path"] for c in gc_candidates(svc.engine)}
    assert plain in gone and pinned not in gone


def test_archive_by_name_on_the_cli_refuses_a_pinned_memory_and_names_unpin(empty_vault):
    """`mnemovault archive <name>` once archived a pinned memory: refused, the note's bytes
    untouched, and archived once the person unpins it."""
    from typer.testing import CliRunner

    from bridge.cli import app

    s = make_service(empty_vault)
    try:
        pinned, _plain = _pair(s, "Named", 1, 120, 121)
    finally:
        s.close()
    note = empty_vault / pinned
    before = note.read_bytes()
    listing = sorted(empty_vault.rglob("*.md"))
    name = note.stem  # by name, not by path or id
    res = CliRunner().invoke(app, ["archive", name, "--vault", str(empty_vault)])
    assert res.exit_code != 0
    assert "pinned" in res.output and "unpin" in res.output, res.output
    assert note.read_bytes() == before
    assert sorted(empty_vault.rglob("*.md")) == listing
    res = CliRunner().invoke(app, ["unpin", name, "--vault", str(empty_vault)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["archive", name, "--vault", str(empty_vault)])
    assert res.exit_code == 0, res.output
    assert not note.exists()


def test_no_path_archives_or_merges_away_a_pinned_memory(svc):
    """archive by id, trash and consolidate refuse a pinned memory before writing anything."""
    from vault_sync.errors import WrongState
    from vault_sync.ops.lifecycle import trash_one

    pinned, plain = _pair(svc, "Kept", 1, 2, 3)
    note = svc.layout.root / pinned
    before = note.read_bytes()
    listing = sorted(p.relative_to(svc.layout.root) for p in svc.layout.root.rglob("*.md"))
    ident = svc.store.note(pinned)["id"]
    with pytest.raises(WrongState, match="pinned.*unpin"):
        svc.archive(ident)
    with pytest.raises(WrongState, match="pinned.*unpin"):
        trash_one(svc.engine, svc.store.note(pinned), "test")
    with pytest.raises(WrongState, match="pinned.*unpin"):
        svc.consolidate([pinned, plain], apply=True)
    assert note.read_bytes() == before
    assert sorted(p.relative_to(svc.layout.root) for p in svc.layout.root.rglob("*.md")) == listing
    assert (svc.layout.root / plain).exists()
