"""The write path's batch of new notes (svc.writes.creating): imports and save_many use it."""

from __future__ import annotations

import os

import pytest
from conftest import make_service


def _svc(tmp_path):
    vault = tmp_path / "v"
    (vault / "STM").mkdir(parents=True)
    return make_service(vault)


def test_a_batch_is_indexed_once_at_its_end(tmp_path):
    svc = _svc(tmp_path)
    with svc.writes.creating() as batch:
        batch.create("STM/one.md", b"---\nid: a1\n---\nfirst note body\n")
        batch.create("Imported/deep/two.md", b"second note body\n")  # its folders are made
        assert svc.store.note("STM/one.md") is None  # not indexed inside the block
    assert batch.paths == ["STM/one.md", "Imported/deep/two.md"]
    assert svc.store.note("STM/one.md")["id"] == "a1"
    assert svc.store.note("Imported/deep/two.md") is not None
    assert (tmp_path / "v" / "Imported" / "deep" / "two.md").read_bytes() == b"second note body\n"


def test_a_batch_never_writes_over_a_note_and_indexes_what_it_made_before_a_failure(tmp_path):
    svc = _svc(tmp_path)
    mine = tmp_path / "v" / "STM" / "mine.md"
    mine.write_bytes(b"the person's own note\n")
    with pytest.raises(FileExistsError):
        with svc.writes.creating() as batch:
            batch.create("STM/new.md", b"made before the failure\n")
            batch.create("STM/mine.md", b"would clobber\n")
    assert mine.read_bytes() == b"the person's own note\n"
    assert batch.paths == ["STM/new.md"]
    assert svc.store.note("STM/new.md") is not None  # what reached the disk is indexed
    assert not [n for n in os.listdir(mine.parent) if n.startswith(".")]  # no temp file left


def test_a_batch_holds_the_write_lock(tmp_path):
    import threading

    svc = _svc(tmp_path)
    got: list[bool] = []
    with svc.writes.creating() as batch:
        batch.create("STM/x.md", b"body of x\n")
        t = threading.Thread(target=lambda: got.append(svc.writes.lock.acquire(timeout=0.2)))
        t.start()
        t.join()
    assert got == [False]  # another thread waits for the batch
