"""A quiet vault. Time alone rewrites a note at most once a day; a use, an edited
input or a new lifecycle state is written at once; due dates move only with the inputs."""

from __future__ import annotations

from datetime import timedelta

from conftest import FIXED_NOW, assert_index_matches_rebuild, make_service

from bridge.bench.quiet_day import simulate_day
from vault_sync.due import crossing_at, due_dates
from vault_sync.fmblock import find_block, load_yaml

STAMP = "%Y-%m-%dT%H:%M:%SZ"


def _note(last, uses: int = 1, strength: float = 1.0, extra: str = "") -> str:
    return (
        f"---\nid: 00000000-0000-4000-8000-000000000001\ntags: [t]  # mine\ncreated: {last.strftime(STAMP)}\n"
        f"last_used: {last.strftime(STAMP)}\nuse_count: {uses}\nstrength: {strength}\nstatus: "
        f"active\n{extra}---\nBody.\n"
    )


def _fm(path) -> dict:
    text = path.read_text(encoding="utf-8")
    b = find_block(text)
    return load_yaml(text[b.yaml_start : b.yaml_end])


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def _service(vault, clock, **kw):
    svc = make_service(vault, **kw)
    svc.clock = clock
    return svc


def test_a_simulated_day_without_use_writes_each_note_at_most_once():
    quiet = simulate_day(notes=300)
    assert quiet["writes_per_note_per_day"] <= 1.0, quiet
    assert quiet["rewritten"] > 0  # the daily refresh still happens


def test_a_day_with_a_tenth_touched_every_hour_stays_within_one_write_per_note_beyond_the_touches():
    busy = simulate_day(notes=300, touch_share=0.1)
    assert busy["touches"] > 100
    # score write-back beyond the touches themselves; promotions the touches earn are moves
    assert (busy["rewritten"] + busy["other"]) / busy["notes"] <= 1.0, busy
    assert busy["writes_per_note_per_day"] <= 1.0, busy


def test_score_refresh_hours_zero_keeps_the_exact_write_back():
    # the old behaviour, on a small vault for a few hours: the rounded score moves all the time
    loud = simulate_day(notes=30, hours=3, score_refresh_hours=0)
    quiet = simulate_day(notes=30, hours=3)
    assert loud["rewritten"] > 10 * max(1, quiet["rewritten"]), (loud, quiet)


def test_crossing_into_the_review_zone_is_written_within_one_interval(empty_vault):
    last = FIXED_NOW - timedelta(days=1)
    note = empty_vault / "STM" / "m.md"
    note.write_text(_note(last), encoding="utf-8")
    clock = Clock(FIXED_NOW)
    svc = _service(empty_vault, clock)
    cross = crossing_at(svc.params, 1, 1.0, last, svc.params.danger_zone_max)
    clock.now = cross - timedelta(hours=2)
    svc.sweep(full=True)
    assert _fm(note)["decay_score"] > svc.params.danger_zone_max
    step, writes = timedelta(minutes=5), []
    while clock.now < cross + step:
        before = note.read_bytes()
        clock.now += step
        svc.sweep()
        if note.read_bytes() != before:
            writes.append(clock.now)
    assert len(writes) == 1 and cross < writes[0] <= cross + step, (writes, cross)
    fm = _fm(note)
    assert svc.params.danger_zone_min <= fm["decay_score"] <= svc.params.danger_zone_max
    assert str(fm["review_on"]) == due_dates(svc.params, 1, 1.0, last)["review_on"].isoformat()
    assert_index_matches_rebuild(svc)
    svc.close()


def test_falling_below_the_forget_threshold_is_archived_within_one_interval(empty_vault):
    from vault_sync.ops.lifecycle import run_lifecycle

    last = FIXED_NOW - timedelta(days=40)
    (empty_vault / "STM" / "m.md").write_text(_note(last), encoding="utf-8")
    clock = Clock(FIXED_NOW)
    svc = _service(empty_vault, clock)
    cross = crossing_at(svc.params, 1, 1.0, last, svc.params.forget_threshold)
    clock.now = cross - timedelta(minutes=1)
    run_lifecycle(svc.engine)
    assert (empty_vault / "STM" / "m.md").exists()
    clock.now = cross + timedelta(minutes=4)
    run_lifecycle(svc.engine)
    assert not (empty_vault / "STM" / "m.md").exists() and (empty_vault / "Archive" / "m.md").exists()
    svc.close()


def test_due_dates_hold_still_until_the_note_is_used_or_an_input_changes(empty_vault):
    last = FIXED_NOW - timedelta(hours=6)
    note = empty_vault / "STM" / "m.md"
    note.write_text(_note(last, uses=2), encoding="utf-8")
    clock = Clock(FIXED_NOW)
    svc = _service(empty_vault, clock)
    svc.sweep()
    first = _fm(note)
    want = due_dates(svc.params, 2, 1.0, last)
    assert str(first["review_on"]) == want["review_on"].isoformat()
    assert str(first["archive_on"]) == want["archive_on"].isoformat()
    for day in range(1, 4):  # daily refreshes move the score, never the dates
        clock.now = FIXED_NOW + timedelta(days=day, minutes=5)
        svc.sweep()
        fm = _fm(note)
        assert fm["decay_score"] < first["decay_score"]
        assert (fm["review_on"], fm["archive_on"]) == (first["review_on"], first["archive_on"])
    # the person raises strength by hand: the next sweep writes score and dates at once
    text = note.read_text(encoding="utf-8").replace("strength: 1.0", "strength: 1.8")
    note.write_text(text, encoding="utf-8")
    svc.sync()
    assert svc.sweep()["written"] == 1
    fm = _fm(note)
    assert str(fm["archive_on"]) == due_dates(svc.params, 2, 1.8, last)["archive_on"].isoformat()
    assert fm["archive_on"] > first["archive_on"]
    # a use moves them too (touch writes them itself)
    svc.touch("STM/m.md")
    fm = _fm(note)
    assert str(fm["review_on"]) == due_dates(svc.params, 3, fm["strength"], clock.now)["review_on"].isoformat()
    assert svc.sweep()["written"] == 0  # the touch's own write is current
    assert_index_matches_rebuild(svc)
    svc.close()


def test_refresh_once_a_day_and_sweep_full_refreshes_now(empty_vault):
    note = empty_vault / "STM" / "m.md"
    note.write_text(_note(FIXED_NOW - timedelta(days=2)), encoding="utf-8")
    clock = Clock(FIXED_NOW)
    svc = _service(empty_vault, clock)
    assert svc.sweep()["written"] == 1
    written = _fm(note)["decay_score"]
    clock.now = FIXED_NOW + timedelta(hours=6)
    assert svc.sweep()["written"] == 0  # the rounded score moved, but the snapshot is recent
    assert _fm(note)["decay_score"] == written
    assert svc.status()["scores_older_than_refresh"] == 0
    assert svc.sweep(full=True)["written"] == 1  # forced now
    assert _fm(note)["decay_score"] < written
    clock.now = FIXED_NOW + timedelta(hours=31)
    assert svc.status()["scores_older_than_refresh"] == 1
    assert svc.sweep()["written"] == 1
    assert svc.status()["scores_older_than_refresh"] == 0
    svc.close()


def test_decisions_read_the_live_score_not_the_stale_written_one(empty_vault):
    # written scores say "fresh"; the inputs say one is in the review zone and one is gone
    p_review = FIXED_NOW - timedelta(days=9)
    p_gone = FIXED_NOW - timedelta(days=90)
    (empty_vault / "STM" / "review.md").write_text(_note(p_review, extra="decay_score: 0.9\n"), encoding="utf-8")
    (empty_vault / "STM" / "gone.md").write_text(
        _note(p_gone, extra="decay_score: 0.9\n").replace("000000000001", "000000000002"), encoding="utf-8"
    )
    svc = make_service(empty_vault)
    assert [r["path"] for r in svc.review()] == ["STM/review.md"]
    assert [c["path"] for c in svc.gc(dry_run=True)["candidates"]] == ["STM/gone.md"]
    svc.close()


def test_a_new_memory_carries_its_due_dates(empty_vault):
    svc = make_service(empty_vault)
    out = svc.save("The staging database is rebuilt every Sunday night.", tags=["ops"])
    fm = _fm(empty_vault / out["note"]["path"])
    want = due_dates(svc.params, 1, 1.0, FIXED_NOW)
    assert (
        str(fm["review_on"]) == want["review_on"].isoformat()
        and str(fm["archive_on"]) == want["archive_on"].isoformat()
    )
    svc.close()


def test_ten_thousand_unchanged_notes_with_nothing_due_write_nothing_and_the_next_pass_reads_no_row(empty_vault):
    stm = empty_vault / "STM"
    for i in range(10_000):
        last = FIXED_NOW - timedelta(minutes=60 + i % 120)  # fresh, far from any threshold
        (stm / f"m{i:05d}.md").write_text(_note(last).replace("000000000001", f"{i:012d}"), encoding="utf-8")
    clock = Clock(FIXED_NOW)
    svc = _service(empty_vault, clock)
    assert svc.sweep()["written"] == 10_000
    stamps = {p.name: p.stat().st_mtime_ns for p in stm.iterdir()}
    clock.now = FIXED_NOW + timedelta(hours=1)  # the rounded scores moved; none is due
    report = svc.sweep()
    assert (report["written"], report["unchanged"], report["remembered"]) == (0, 10_000, False)
    for minutes in (5, 10, 60, 300):  # the daemon's next passes: the index saw no change
        clock.now = FIXED_NOW + timedelta(hours=1, minutes=minutes)
        report = svc.sweep()
        assert (report["written"], report["unchanged"], report["remembered"]) == (0, 10_000, True), minutes
    assert {p.name: p.stat().st_mtime_ns for p in stm.iterdir()} == stamps  # not one file written
    # a change in the index (a use) ends the memory: the next pass looks at every row again
    svc.touch("STM/m00007.md")
    report = svc.sweep()
    assert (report["written"], report["remembered"]) == (0, False)  # the touch wrote its own scores
    assert svc.sweep()["remembered"] is True
    # a day later every score is older than the window: remembered passes must not hide that
    clock.now = FIXED_NOW + timedelta(days=1, hours=2)
    report = svc.sweep()
    assert report["remembered"] is False and report["written"] == 9_999  # the touched one is newer
    svc.close()


def test_a_remembered_quiet_pass_never_hides_a_crossing(empty_vault):
    """Notes of every age: each 5-minute pass, remembered or not, writes exactly what a pass
    that reads every row writes (the same vault swept by a service without a memory)."""
    import shutil

    from vault_sync.ops import sweep_memo

    for i in range(120):
        last = FIXED_NOW - timedelta(hours=3 * i + 1)
        (empty_vault / "STM" / f"m{i:03d}.md").write_text(
            _note(last).replace("000000000001", f"{i:012d}"), encoding="utf-8"
        )
    twin = empty_vault.parent / "twin"
    shutil.copytree(empty_vault, twin)
    clock = Clock(FIXED_NOW)
    svc, ref = _service(empty_vault, clock), _service(twin, clock, index_path=twin.parent / "twin.sqlite3")
    svc.sweep(), ref.sweep()
    remembered = 0
    for step in range(1, 12 * 30):  # 30 simulated hours
        clock.now = FIXED_NOW + timedelta(minutes=5 * step)
        got = svc.sweep()
        sweep_memo.forget(ref.engine)
        want = ref.sweep()
        assert got["written"] == want["written"], (step, got, want)
        remembered += got["remembered"]
    assert remembered > 100  # most passes were answered from memory
    assert {p.name: p.read_bytes() for p in (empty_vault / "STM").iterdir()} == {
        p.name: p.read_bytes() for p in (twin / "STM").iterdir()
    }
    svc.close(), ref.close()


def test_the_memory_of_a_quiet_pass_survives_a_reconcile_that_found_nothing_and_ends_with_an_edit(empty_vault):
    for i in range(20):
        last = FIXED_NOW - timedelta(hours=2)
        (empty_vault / "STM" / f"m{i:02d}.md").write_text(
            _note(last).replace("000000000001", f"{i:012d}"), encoding="utf-8"
        )
    (empty_vault / "picture.png").write_bytes(b"\x89PNG")
    clock = Clock(FIXED_NOW)
    svc = _service(empty_vault, clock)
    assert svc.sweep()["written"] == 20
    clock.now += timedelta(minutes=5)
    assert svc.sweep()["remembered"] is False
    clock.now += timedelta(minutes=5)
    assert svc.sweep()["remembered"] is True
    svc.sync()  # the watcher's periodic reconcile: the attachment list and last_sync are rewritten
    svc.store.set_meta("background", "{}")  # what the daemon records after each run
    assert svc.sweep()["remembered"] is True
    note = empty_vault / "STM" / "m03.md"
    note.write_text(note.read_text(encoding="utf-8").replace("strength: 1.0", "strength: 1.5"), encoding="utf-8")
    svc.sync()
    report = svc.sweep()
    assert (report["remembered"], report["written"]) == (False, 1)
    assert _fm(note)["decay_score"] > 1.0
    svc.close()


def test_the_memory_of_a_quiet_pass_belongs_to_its_service_and_a_reopened_one_starts_empty(empty_vault):
    for i in range(20):
        last = FIXED_NOW - timedelta(hours=2)
        (empty_vault / "STM" / f"m{i:02d}.md").write_text(
            _note(last).replace("000000000001", f"{i:012d}"), encoding="utf-8"
        )
    clock = Clock(FIXED_NOW)
    svc = _service(empty_vault, clock)
    svc.sweep()
    clock.now += timedelta(minutes=5)
    svc.sweep()
    clock.now += timedelta(minutes=5)
    assert svc.sweep()["remembered"] is True
    assert svc.runtime.quiet_sweep is not None  # held by this service's runtime
    svc.close()
    again = _service(empty_vault, clock)  # the same vault and index, a new service
    assert again.runtime.quiet_sweep is None
    clock.now += timedelta(minutes=5)
    assert again.sweep()["remembered"] is False  # it reads every row once, then remembers
    clock.now += timedelta(minutes=5)
    assert again.sweep()["remembered"] is True
    again.close()
