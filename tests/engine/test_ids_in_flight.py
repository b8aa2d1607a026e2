"""A sync engine's move (a new file in LTM/, then the old one in STM/ deleted) never changes a
memory's id; a move that never finished settles to one memory; a copy still gets a new id."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from conftest import make_service

from vault_sync.dates import utc_now
from vault_sync.note import parse_note

SETTLE = 600.0


def _service(vault, ahead: float = 0.0):
    """A clock at real time (plus `ahead`): the wait is measured from the file's real ctime."""
    svc = make_service(vault, sync=False, duplicate_settle_seconds=SETTLE)
    svc.engine.clock.source = lambda: utc_now() + timedelta(seconds=ahead)
    return svc


@pytest.fixture
def memory(empty_vault):
    (empty_vault / "LTM").mkdir()
    svc = make_service(empty_vault)
    saved = svc.save("The staging cluster is rebuilt from Terraform every Sunday night.")["note"]
    for _ in range(2):
        svc.touch(saved["id"])
    svc.close()
    return empty_vault, saved["path"], saved["id"]


def _promoted_elsewhere(vault, rel: str) -> str:
    """What another device's promotion delivers first: the note in LTM/, promoted, with Related."""
    text = (vault / rel).read_text(encoding="utf-8")
    text = text.replace("status: active", "status: promoted") + "\n## Related\n\n- [[Elsewhere]]\n"
    dst = "LTM/" + rel.split("/", 1)[1]
    (vault / dst).write_text(text, encoding="utf-8")
    return dst


def _clock_works(svc) -> bool:
    return abs((svc.now() - utc_now()).total_seconds()) < SETTLE


def test_a_move_in_flight_keeps_the_id(memory):
    vault, rel, mid = memory
    svc = _service(vault)
    try:
        assert _clock_works(svc)
        dst = _promoted_elsewhere(vault, rel)
        report = svc.sync()
        assert any("waiting for a move in flight" in line for line in report["id_fixes"])
        assert parse_note(dst, (vault / dst).read_bytes()).fields.id == mid  # not given a new id
        os.unlink(vault / rel)  # the delete arrives
        report = svc.sync()
        assert report["id_fixes"] == []
        assert svc.get_memory([mid])[0]["path"] == dst
    finally:
        svc.close()


def test_a_move_that_never_finished_settles_to_one_memory(memory):
    vault, rel, mid = memory
    dst = _promoted_elsewhere(vault, rel)
    stm = vault / rel  # this side used it twice more during the split
    text = stm.read_text(encoding="utf-8").replace("use_count: 3", "use_count: 5")
    stm.write_text(text, encoding="utf-8")
    svc = _service(vault, ahead=SETTLE + 5)
    try:
        report = svc.sync()
        assert any("left behind by a move" in line for line in report["id_fixes"]), report["id_fixes"]
        assert not stm.exists()
        kept = parse_note(dst, (vault / dst).read_bytes())
        assert kept.fields.id == mid and kept.fields.use_count == 5
        trashed = list((vault / ".trash").glob("*.md"))
        assert len(trashed) == 1 and trashed[0].read_text(encoding="utf-8") == text  # recoverable, as it was
        assert svc.get_memory([mid])[0]["path"] == dst
    finally:
        svc.close()


def test_a_copy_across_folders_with_other_text_gets_a_new_id_once_settled(memory):
    vault, rel, mid = memory
    dst = "LTM/" + rel.split("/", 1)[1]
    text = (vault / rel).read_text(encoding="utf-8").replace("Sunday", "Saturday")
    (vault / dst).write_text(text, encoding="utf-8")
    svc = _service(vault, ahead=SETTLE + 5)
    try:
        report = svc.sync()
        assert any("given new id" in line for line in report["id_fixes"]), report["id_fixes"]
        assert parse_note(rel, (vault / rel).read_bytes()).fields.id == mid  # the older path keeps it
        assert parse_note(dst, (vault / dst).read_bytes()).fields.id != mid
    finally:
        svc.close()


def test_the_watcher_waits_for_the_delete(memory):
    """Live, with the real observer: the create and the delete arrive as a sync engine sends them."""
    vault, rel, mid = memory
    svc = _service(vault)
    watcher = svc.start_watcher(reconcile_interval=600.0)
    try:
        dst = _promoted_elsewhere(vault, rel)
        deadline = time.monotonic() + 20
        while svc.store.note(dst) is None and time.monotonic() < deadline:
            watcher.wait_idle(timeout=1)
        assert svc.store.note(dst) is not None
        os.unlink(vault / rel)
        deadline = time.monotonic() + 20
        while svc.store.note(rel) is not None and time.monotonic() < deadline:
            watcher.wait_idle(timeout=1)
        assert svc.store.note(rel) is None
        assert parse_note(dst, (vault / dst).read_bytes()).fields.id == mid
        assert svc.get_memory([mid])[0]["path"] == dst
    finally:
        svc.runtime.stop_watcher()
        svc.close()
