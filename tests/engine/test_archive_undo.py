"""An archive's undo gives back the note's bytes at its path, whatever keys the note held
before (cases the lifecycle model found; tests/engine/test_lifecycle_model.py)."""

from __future__ import annotations

import os

import pytest
from conftest import assert_index_matches_rebuild, make_service


@pytest.fixture
def svc(empty_vault):
    s = make_service(empty_vault)
    yield s
    s.close()


def test_archive_undo_of_a_memory_the_person_took_back_from_the_archive(svc, empty_vault):
    """Archived, then moved back to STM/ by hand (it still says status: archived, archived_at,
    archive_reason, archived_from): archiving it again and undoing that gives it back as it was."""
    path = svc.save("Train detail one.", title="Train")["note"]["path"]
    moved = svc.archive(path)
    os.rename(empty_vault / moved["to"], empty_vault / "STM/Train.md")
    svc.writes.synced([moved["to"], "STM/Train.md"])
    before = (empty_vault / "STM/Train.md").read_bytes()
    assert b"archived_at:" in before
    again = svc.archive("STM/Train.md")
    back = svc.restore(again["to"], prior=again["prior"])
    assert back["to"] == "STM/Train.md"
    assert (empty_vault / "STM/Train.md").read_bytes() == before
    assert_index_matches_rebuild(svc)
