"""Daemon jobs (bridge/http_jobs.py): GC, promote-all and sync run in a thread and report
progress and their result as `job` events, on a real service over the sample vault."""

from __future__ import annotations

import time

import pytest

from bridge.http_jobs import Jobs
from tests.conftest import make_service
from vault_sync.errors import InvalidInput


@pytest.fixture
def svc(vault):
    s = make_service(vault)
    yield s
    s.close()


def _run(svc, kind):
    events = []
    svc.subscribe(lambda k, d: events.append(d) if k == "job" else None)
    jobs = Jobs(svc, clock=lambda: 0.0)  # a fixed clock: progress events only at the start and the end
    started = jobs.start(kind)
    assert started["state"] == "running"
    deadline = time.monotonic() + 60
    while jobs.list()["jobs"][0]["state"] == "running":
        assert time.monotonic() < deadline, "the job never finished"
        time.sleep(0.02)
    return jobs, events


def test_gc_job_reports_total_progress_and_result(svc, vault):
    candidates = svc.gc(dry_run=True)["candidates"]
    assert candidates, "the sample vault has GC candidates at FIXED_NOW"
    jobs, events = _run(svc, "gc")
    assert events[0]["state"] == "running" and events[0]["total"] is None
    last = events[-1]
    assert last["state"] == "done" and last["total"] == len(candidates) and last["done"] == len(candidates)
    assert len(last["result"]["archived"]) == len(candidates)
    for c in candidates:
        assert not (vault / c["path"]).exists()
    assert jobs.list()["jobs"][0]["state"] == "done"


def test_sync_job_reports_its_result(svc, vault):
    (vault / "STM" / "Fresh from another device.md").write_text(
        "---\n---\nA new fact arrived by sync.\n", encoding="utf-8"
    )
    _, events = _run(svc, "sync")
    last = events[-1]
    assert last["state"] == "done" and last["result"]["added"] == 1
    assert last["done"] == (last["total"] or 0)


def test_unknown_job_is_refused(svc):
    with pytest.raises(InvalidInput):
        Jobs(svc).start("delete-everything")


def test_consolidate_job_merges_the_memories_counts_each_archived_and_reports_the_note(empty_vault):
    svc_e = make_service(empty_vault)
    try:
        a = svc_e.save("The staging database restores from the nightly snapshot", title="Staging restore A")["note"]
        # its own memory (a save would reinforce `a`: the same fact in other words)
        b = svc_e.create_memory("Staging restores use last night's snapshot of the database", title="Staging restore B")
        events: list[dict] = []
        svc_e.subscribe(lambda k, d: events.append(d) if k == "job" else None)
        jobs = Jobs(svc_e, clock=lambda: 0.0)
        started = jobs.start("consolidate", [a["id"], b["path"]])
        assert started["kind"] == "consolidate" and started["state"] == "running"
        deadline = time.monotonic() + 60
        while jobs.list()["jobs"][0]["state"] == "running":
            assert time.monotonic() < deadline, "the job never finished"
            time.sleep(0.02)
        last = events[-1]
        assert last["state"] == "done", last
        assert last["total"] == 2 and last["done"] == 2
        merged = last["result"]["note"]["path"]
        assert (empty_vault / merged).exists()
        assert not (empty_vault / a["path"]).exists() and not (empty_vault / b["path"]).exists()
        assert sorted(m["from"] for m in last["result"]["archived"]) == sorted([a["path"], b["path"]])
    finally:
        svc_e.close()


def test_consolidate_job_needs_ids_and_other_jobs_take_none(svc):
    jobs = Jobs(svc)
    with pytest.raises(InvalidInput, match="ids"):
        jobs.start("consolidate")
    with pytest.raises(InvalidInput, match="ids"):
        jobs.start("gc", ["x"])
    assert jobs.list()["jobs"] == []


def test_a_consolidate_job_that_cannot_merge_fails_with_the_reason(svc):
    jobs = Jobs(svc, clock=lambda: 0.0)
    jobs.start("consolidate", ["STM/not here.md"])
    deadline = time.monotonic() + 30
    while jobs.list()["jobs"][0]["state"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    job = jobs.list()["jobs"][0]
    assert job["state"] == "failed" and job["error"]["code"] == "not_found"


def test_the_note_answer_names_the_newest_successor_of_a_superseded_note(empty_vault):
    s = make_service(empty_vault)
    try:
        a = s.save("The user prefers Python for scripts", title="Prefers Python")["note"]
        b = s.save("The user now prefers Go for scripts", title="Prefers Go", supersedes=[a["id"]])["note"]
        c = s.save("The user now prefers Rust for scripts", title="Prefers Rust", supersedes=[b["id"]])["note"]
        old = s.note(a["path"])
        assert old["status"] == "superseded" and old["superseded_by"] == c["path"]
        assert s.note(b["path"])["superseded_by"] == c["path"]
        assert s.note(c["path"])["superseded_by"] is None
    finally:
        s.close()


def test_promote_job_counts_its_candidates_as_the_total(svc):
    candidates = svc.promote_all(True)["candidates"]
    assert candidates, "the sample vault has promote candidates at FIXED_NOW"
    _, events = _run(svc, "promote")
    last = events[-1]
    assert last["state"] == "done" and len(last["result"]["promoted"]) == len(candidates)
    assert last["total"] == len(candidates) and last["done"] == len(candidates)
