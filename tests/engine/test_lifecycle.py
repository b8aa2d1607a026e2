"""touch, observe, promote, gc, archive/restore, relate/graph, review, run_lifecycle: end to end."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml
from conftest import assert_index_matches_rebuild, make_service

from vault_sync.errors import Ambiguous, NotFound, PathOutsideVault, WrongState

PROMOTE = [
    "STM/Production deploys freeze Friday afternoons.md",
    "STM/Feature flags live in LaunchDarkly.md",
    "STM/Use uv for Python environments.md",
    "STM/Marta owns billing on-call.md",
    "STM/Research sync moved to Tuesdays.md",
]
FORGET = [
    "STM/Office printer needs the IPP driver.md",
    "STM/Old Jenkins host was ci-legacy-01.md",
    "STM/Conference hotel booking in Lisbon.md",
    "STM/Lunch place on 5th Street closes Mondays.md",
    "STM/Workaround for the flaky login test.md",
]
PINNED = "STM/Passport renewal due before March 2027.md"
MARTA = "STM/Marta owns billing on-call.md"


def fm(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1])


def snapshot(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*.md")}


# -- touch / observe --
def test_touch_updates_use_and_returns_scores(service, vault):
    rel = "STM/Staging runs Postgres 16.md"
    old = fm(vault / rel)
    out = service.touch(rel)
    new = fm(vault / rel)
    assert new["use_count"] == old["use_count"] + 1
    assert new["last_used"].isoformat().startswith("2026-11-20T12:00:00")
    assert new["strength"] == old["strength"]
    assert out["new_score"] > out["old_score"] and out["note"]["use_count"] == old["use_count"] + 1
    assert service.store.note(rel)["use_count"] == old["use_count"] + 1
    assert_index_matches_rebuild(service)


def test_touch_boost_caps_at_two(service, vault):
    rel = "STM/Staging runs Postgres 16.md"
    service.touch(service.store.note(rel)["id"], boost=True)
    assert fm(vault / rel)["strength"] == pytest.approx(1.1)
    for _ in range(12):
        service.touch(rel, boost=True)
    assert fm(vault / rel)["strength"] == 2.0


def test_observe_cross_domain_and_same_domain(service, vault):
    a, b = "STM/Staging runs Postgres 16.md", "STM/Redis session TTL is 30 minutes.md"
    sa, sb = fm(vault / a), fm(vault / b)
    out = service.observe([a], context_tags=["cooking", "travel"])
    assert out["observed"][0]["cross_domain"] is True
    na = fm(vault / a)
    assert na["cross_domain_count"] == sa.get("cross_domain_count", 0) + 1
    assert na["strength"] == pytest.approx(sa["strength"] + 0.1)
    assert na["review_count"] == sa.get("review_count", 0) + 1 and na["use_count"] == sa["use_count"] + 1
    out = service.observe([b], context_tags=["project/atlas", "redis"])
    assert out["observed"][0]["cross_domain"] is False
    nb = fm(vault / b)
    assert nb.get("cross_domain_count", 0) == sb.get("cross_domain_count", 0) and nb["strength"] == sb["strength"]
    assert nb["review_count"] == sb.get("review_count", 0) + 1
    assert_index_matches_rebuild(service)


def test_observe_reports_bad_refs_and_goes_on(service, vault):
    out = service.observe(
        ["no-such-id", "STM/Staging runs Postgres 16.md", "Archive/Team channel was atlas-dev.md"], ["x"]
    )
    assert len(out["observed"]) == 1 and len(out["errors"]) == 2
    assert "restore it first" in out["errors"][1]["error"]


# -- bad references --
def test_unknown_ids_and_paths_outside_the_vault_are_refused(service, vault, tmp_path):
    with pytest.raises(NotFound):
        service.touch("00000000-0000-0000-0000-000000000000")
    with pytest.raises(PathOutsideVault):
        service.touch("../outside.md")
    with pytest.raises(PathOutsideVault):
        service.promote("STM/../../etc/passwd")
    with pytest.raises(PathOutsideVault):
        service.touch(str(vault / "STM" / "Staging runs Postgres 16.md"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("---\nid: out\n---\nsecret stuff\n", encoding="utf-8")
    os.symlink(outside, vault / "STM" / "link")
    with pytest.raises(PathOutsideVault):
        service.touch("STM/link/x.md")
    with pytest.raises(PathOutsideVault):
        service.archive("STM/link/x.md")
    assert (outside / "x.md").read_text(encoding="utf-8") == "---\nid: out\n---\nsecret stuff\n"


def test_id_shared_by_two_notes_is_ambiguous(vault):
    shared = yaml.safe_load((vault / MARTA).read_text(encoding="utf-8").split("---\n", 2)[1])["id"]
    # a copy with an invalid value: the indexer cannot give it a new id, so both keep it
    (vault / "STM" / "Zz copy of Marta.md").write_text(
        f"---\nid: {shared}\nstrength: 7\n---\nA copy of the note.\n", encoding="utf-8"
    )
    svc = make_service(vault)
    with pytest.raises(Ambiguous):
        svc.touch(shared)
    with pytest.raises(Ambiguous):
        svc.promote(shared)
    assert (vault / MARTA).exists()


# -- promote --
def test_promote_dry_run_lists_candidates_and_changes_nothing(service, vault):
    before = snapshot(vault)
    out = service.promote_all(dry_run=True)
    assert sorted(c["path"] for c in out["candidates"]) == sorted(PROMOTE)
    assert all(c["reason"] for c in out["candidates"])
    assert any("within 14 days" in c["reason"] for c in out["candidates"])
    assert snapshot(vault) == before
    assert_index_matches_rebuild(service)


def test_promote_auto_promotes_all_candidates(service, vault, tmp_path):
    out = service.promote_all()
    assert sorted(m["from"] for m in out["promoted"]) == sorted(PROMOTE) and out["errors"] == []
    index = (vault / "LTM" / "LTM Index.md").read_text(encoding="utf-8")
    for rel in PROMOTE:
        name = rel[4:-3]
        assert not (vault / rel).exists()
        meta = fm(vault / "LTM" / f"{name}.md")
        assert meta["status"] == "promoted" and meta["promoted_at"].isoformat().startswith("2026-11-20T12:00:00")
        assert f"- [[{name}]] (promoted 2026-11-20)" in index
        row = service.store.note(f"LTM/{name}.md")
        assert row["kind"] == "ltm" and row["status"] == "promoted"
    assert service.promote_all(dry_run=True)["candidates"] == []
    assert service.dangling_links() == make_service(vault, index_path=tmp_path / "x.sqlite3").dangling_links()
    assert_index_matches_rebuild(service)


def test_promote_related_section_weights_rare_tags(service, vault):
    service.promote(MARTA)
    text = (vault / "LTM" / "Marta owns billing on-call.md").read_text(encoding="utf-8")
    related = text.split("## Related", 1)[1]
    # explicit relation first, then the note sharing the rare tag "on-call"
    assert related.strip().splitlines() == ["- [[Sam wants weekly status in Slack]]", "- [[On-call handbook]]"]
    # "people" is common: Lena, Priya and the dinner note are not pulled in
    assert "Lena" not in related and "Priya" not in related
    # the frontmatter is untouched apart from the owned keys
    meta = fm(vault / "LTM" / "Marta owns billing on-call.md")
    assert meta["related"] == ["[[Sam wants weekly status in Slack]]"] and meta["tags"] == [
        "people",
        "on-call",
        "billing",
    ]


def test_promote_related_shares_rare_tag(service, vault):
    service.promote("STM/Research sync moved to Tuesdays.md")
    text = (vault / "LTM" / "Research sync moved to Tuesdays.md").read_text(encoding="utf-8")
    assert "- [[Research cluster GPU quota is 8 A100s]]" in text


def test_promote_by_id_and_wrong_states(service):
    row = service.store.note("STM/Staging runs Postgres 16.md")  # not a candidate: promoted on request
    out = service.promote(row["id"])
    assert out["promoted"][0]["to"] == "LTM/Staging runs Postgres 16.md" and out["promoted"][0]["reason"] == "requested"
    with pytest.raises(WrongState, match="already promoted"):
        service.promote(row["id"])
    with pytest.raises(WrongState, match="archived"):
        service.promote("Archive/Team channel was atlas-dev.md")
    with pytest.raises(WrongState, match="archived"):
        service.promote("Archive/Team channel was atlas-dev.md", dry_run=True)
    with pytest.raises(WrongState):
        service.promote("People.md")
    assert_index_matches_rebuild(service)


# -- gc / archive / restore --
def test_gc_dry_run_then_archive_lowest_first(service, vault):
    before = snapshot(vault)
    dry = service.gc(dry_run=True)
    assert [c["path"] for c in dry["candidates"]] == FORGET
    assert [c["score"] for c in dry["candidates"]] == sorted(c["score"] for c in dry["candidates"])
    assert PINNED not in [c["path"] for c in dry["candidates"]]
    assert snapshot(vault) == before
    out = service.gc(dry_run=False)
    assert [m["from"] for m in out["archived"]] == FORGET
    for rel in FORGET:
        dst = vault / "Archive" / rel[4:]
        assert not (vault / rel).exists() and dst.exists()
        meta = fm(dst)
        assert meta["status"] == "archived" and meta["archived_at"].isoformat().startswith("2026-11-20T12:00")
        assert meta["archive_reason"].startswith("score ") and "forget threshold" in meta["archive_reason"]
        assert service.store.note("Archive/" + rel[4:])["kind"] == "archive"
    assert (vault / PINNED).exists()
    assert_index_matches_rebuild(service)


def test_gc_delete_moves_to_trash_never_unlinks(service, vault, monkeypatch):
    contents = {rel: (vault / rel).read_text(encoding="utf-8").split("---\n", 2)[2] for rel in FORGET}
    out = service.gc(dry_run=False, delete=True)
    assert len(out["archived"]) == 5
    for rel, body in contents.items():
        trashed = vault / ".trash" / rel[4:]
        assert trashed.exists() and trashed.read_text(encoding="utf-8").endswith(body)
        assert not (vault / rel).exists() and service.store.note(rel) is None
    assert_index_matches_rebuild(service)


def test_restore_and_wrong_states(service, vault):
    with pytest.raises(WrongState, match="not archived"):
        service.restore("STM/Staging runs Postgres 16.md")
    with pytest.raises(WrongState, match="already archived"):
        service.archive("Archive/Team channel was atlas-dev.md")
    out = service.restore("Archive/Team channel was atlas-dev.md")
    assert out["to"] == "STM/Team channel was atlas-dev.md"
    meta = fm(vault / "STM" / "Team channel was atlas-dev.md")
    assert meta["status"] == "active" and "archived_at" not in meta and "archive_reason" not in meta
    assert service.store.note("STM/Team channel was atlas-dev.md")["archived_at"] is None
    assert_index_matches_rebuild(service)


# -- relate / graph / review --
def test_relate_and_graph(service, vault):
    a, b = "STM/Staging runs Postgres 16.md", "STM/Redis session TTL is 30 minutes.md"
    out = service.relate(a, b)
    assert out["added"] is True
    assert fm(vault / a)["related"] == ["[[Redis session TTL is 30 minutes]]"]
    assert service.relate(a, b)["added"] is False
    g = service.graph()
    assert {"source": a, "target": b, "kind": "related"} in g["edges"]
    assert {"source": MARTA, "target": "STM/Sam wants weekly status in Slack.md", "kind": "related"} in g["edges"]
    with pytest.raises(Exception):
        service.relate(a, a)
    assert_index_matches_rebuild(service)


def test_review_lists_the_danger_zone_by_priority(service):
    items = service.review()
    assert len(items) == 7
    prios = [i["review_priority"] for i in items]
    assert prios == sorted(prios, reverse=True) and prios[0] > 0.9
    assert items[0]["path"] == "STM/VPN split tunneling breaks internal DNS.md"
    assert all(0.15 <= i["score"] <= 0.35 for i in items)


# -- automatic lifecycle --
def test_run_lifecycle_switches(vault):
    svc = make_service(vault, auto_promote=False, auto_gc=False)
    report = svc.run_lifecycle()
    assert "promote" not in report and "gc" not in report
    assert all((vault / p).exists() for p in PROMOTE + FORGET)
    svc.close()
    svc = make_service(vault, auto_promote=True, auto_gc=True)
    report = svc.run_lifecycle()
    assert len(report["promote"]["promoted"]) == 5 and len(report["gc"]["archived"]) == 5
    assert not any((vault / p).exists() for p in PROMOTE + FORGET) and (vault / PINNED).exists()
    assert_index_matches_rebuild(svc)


def test_run_lifecycle_skips_recently_modified_only(vault):
    old = time.time() - 3600
    for p in vault.rglob("*.md"):
        os.utime(p, (old, old))
    edited = [PROMOTE[0], FORGET[0]]
    for rel in edited:
        os.utime(vault / rel, None)  # just now: the person is editing it
    svc = make_service(vault, quiet_seconds=60, auto_promote=True, auto_gc=True)
    report = svc.run_lifecycle()
    assert sorted(m["from"] for m in report["promote"]["promoted"]) == sorted(PROMOTE[1:])
    assert [m["from"] for m in report["gc"]["archived"]] == FORGET[1:]
    assert all((vault / rel).exists() for rel in edited)
    assert_index_matches_rebuild(svc)


def test_tag_neighbours_equal_a_brute_force_ranking(empty_vault):
    """The pruned SQL ranking gives exactly what scoring every memory would give."""
    import math
    import random

    from vault_sync.ops import lifecycle

    rng = random.Random(5)
    common = ["people", "work", "home"]
    rare = [f"rare{i}" for i in range(12)]
    for i in range(120):
        tags = rng.sample(common, rng.randint(0, 2)) + rng.sample(rare, rng.randint(0, 2))
        folder = "LTM" if i % 5 == 0 else "STM"
        (empty_vault / folder).mkdir(exist_ok=True)
        (empty_vault / folder / f"n{i:03d}.md").write_text(
            f"---\nid: 00000000-0000-4000-8000-{i:012d}\ntags: [{', '.join(tags)}]\ncreated: 2026-11-01T00:00:00Z\n"
            f"status: {'promoted' if folder == 'LTM' else 'active'}\n---\nnote {i}\n",
            encoding="utf-8",
        )
    (empty_vault / "Person.md").write_text("---\ntags: [rare1, people]\n---\nnot a memory\n", encoding="utf-8")
    svc = make_service(empty_vault)
    rows = svc.store.query("SELECT rowid, * FROM notes WHERE kind IN ('stm', 'ltm')")
    tags_of = {r["rowid"]: set(svc.store.tags_of(r["rowid"])) for r in rows}
    df: dict[str, int] = {}
    for ts in tags_of.values():
        for t in ts:
            df[t] = df.get(t, 0) + 1
    checked = 0
    for row in rows:
        mine = tags_of[row["rowid"]]
        if not mine:
            assert lifecycle._tag_neighbours(svc.engine, row) == []
            continue
        idf = {t: math.log((len(rows) + 1) / df[t]) for t in mine}
        own = sum(idf.values())
        scored = [(sum(idf[t] for t in mine & tags_of[r["rowid"]]), r) for r in rows if r["rowid"] != row["rowid"]]
        want = [
            r["path"]
            for s, r in sorted(scored, key=lambda x: (-round(x[0], 9), x[1]["kind"] != "ltm", x[1]["path"]))
            if s >= lifecycle.MIN_TAG_SCORE * own - 1e-9
        ][: lifecycle.MAX_RELATED]
        assert lifecycle._tag_neighbours(svc.engine, row) == want, row["path"]
        checked += bool(want)
    assert checked > 50
    svc.close()


def test_a_move_a_person_saves_into_is_still_reported_and_finished_later(vault):
    """A person's in-place save empties the file before it writes; when that lands just after
    the engine renamed the note, the keys cannot be written then, but the note has moved: the
    run reports the move (and the keys as not yet written), and recover writes them."""
    svc = make_service(vault)
    real_move = svc.writes.move
    saved: dict[Path, bytes] = {}

    def move_then_person_truncates(src, dst, replace=False):
        real_move(src, dst, replace)
        path = vault / dst
        saved[path] = path.read_bytes()
        os.close(os.open(path, os.O_WRONLY | os.O_TRUNC))  # the save has truncated, not written yet

    svc.writes.move = move_then_person_truncates
    report = svc.run_lifecycle()
    promoted = {m["to"] for m in report["promote"]["promoted"]}
    assert promoted == {p.replace("STM/", "LTM/") for p in PROMOTE}
    assert {e["path"] for e in report["promote"]["errors"]} == promoted  # the keys wait, said so
    assert all(m.get("unfinished") for m in report["promote"]["promoted"])
    for path, data in saved.items():  # the person's save completes
        path.write_bytes(data + b"\nAdded by the person.\n")
    svc.writes.move = real_move
    svc.close()
    svc = make_service(vault)
    assert len(svc.recover()) >= len(promoted)
    for rel in promoted:
        text = (vault / rel).read_text(encoding="utf-8")
        assert fm(vault / rel)["status"] == "promoted" and "Added by the person.\n" in text  # theirs kept
    assert_index_matches_rebuild(svc)
    svc.close()


def test_a_use_count_of_0_written_by_hand_means_never_used(empty_vault):
    """docs/memories.md: `use_count: 0` is read as the person wrote it: score 0, the next gc
    archives it; 1 (a memory as just saved) keeps it."""
    at = "2026-11-19T12:00:00Z"
    text = "---\nid: {id}\ncreated: " + at + "\nlast_used: " + at + "\nuse_count: {n}\n---\n{body}\n"
    (empty_vault / "STM" / "Never used.md").write_text(text.format(id="a" * 8, n=0, body="Never used"))
    (empty_vault / "STM" / "Saved once.md").write_text(text.format(id="b" * 8, n=1, body="Saved once"))
    svc = make_service(empty_vault)
    assert svc.note("STM/Never used.md")["score"] == 0
    assert svc.note("STM/Saved once.md")["score"] > svc.engine.params.danger_zone_max
    assert [m["from"] for m in svc.gc(dry_run=False)["archived"]] == ["STM/Never used.md"]
    svc.close()


def test_an_archived_long_term_memory_is_restored_to_ltm_as_promoted(service, vault):
    """Archive then restore of an LTM memory: back in LTM/ as promoted (not a promotion
    candidate in STM/), and the links to it follow it both ways."""
    ltm = "LTM/Espresso recipe.md"
    linking = "Home and kitchen.md"
    assert "[[Espresso recipe]]" in (vault / linking).read_text(encoding="utf-8")
    moved = service.archive(ltm, "no longer brewing")
    assert moved["to"] == "Archive/Espresso recipe.md"
    assert fm(vault / moved["to"])["archived_from"] == "ltm"
    back = service.restore(moved["to"])
    assert back["to"] == ltm
    meta = fm(vault / ltm)
    assert meta["status"] == "promoted" and meta.get("promoted_at") and "archived_from" not in meta
    assert "archived_at" not in meta and "archive_reason" not in meta
    assert "[[Espresso recipe]]" in (vault / linking).read_text(encoding="utf-8")
    assert service.store.note(ltm)["kind"] == "ltm"
    assert ltm not in {c["path"] for c in service.promote_all(dry_run=True).get("candidates", [])}
    assert_index_matches_rebuild(service)

    # a short-term memory still comes back to STM/ as active
    stm = "STM/Staging runs Postgres 16.md"
    moved = service.archive(stm)
    assert fm(vault / moved["to"])["archived_from"] == "stm"
    assert service.restore(moved["to"])["to"] == stm and fm(vault / stm)["status"] == "active"
