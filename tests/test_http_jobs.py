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
    (vault / "STM" / "Fresh from another device.md").write_text("---\n---\nA new fact arrived by sync.\n", encoding="utf-8")
    _, events = _run(svc, "sync")
    last = events[-1]
    assert last["state"] == "done" and last["result"]["added"] == 1
    assert last["done"] == (last["total"] or 0)


def test_unknown_job_is_refused(svc):
    with pytest.raises(InvalidInput):
        Jobs(svc).start("delete-everything")
