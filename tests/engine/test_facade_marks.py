"""Every public method of the facade says once what it is (vault_sync/facade_marks.py), and
the mark is what decides the write lock and the healing of a damaged index."""

from __future__ import annotations

import inspect
import threading

import pytest
from conftest import make_service

from vault_sync.engine_view import EngineView
from vault_sync.errors import IndexDamaged
from vault_sync.facade_marks import BACKGROUND, INTERNAL, READ, WRITE, mark_of
from vault_sync.service import MemoryService


def _public() -> dict[str, object]:
    return {name: value for name, value in vars(MemoryService).items() if not name.startswith("_")}


def test_every_public_facade_method_is_marked():
    unmarked = sorted(name for name, value in _public().items() if mark_of(value) is None)
    assert not unmarked, f"mark these in vault_sync/service.py (facade_marks: reads, writes, ...): {unmarked}"
    assert {mark_of(v) for v in _public().values()} <= {READ, WRITE, BACKGROUND, INTERNAL}


def test_the_engine_view_holds_only_the_engines_parts():
    """The facade's base shows parts (properties), never operations: an operation there would escape the marks."""
    methods = [n for n, v in vars(EngineView).items() if not n.startswith("_") and inspect.isfunction(v)]
    assert methods == []


def test_operations_the_issue_found_outside_the_lists_are_marked():
    marks = {name: mark_of(value) for name, value in _public().items()}
    for name in ("consolidate", "review_memory", "undo_review", "save", "touch", "archive", "restore"):
        assert marks[name] == WRITE, name
    for name in ("recent", "review_page", "dangling", "cluster", "embedding_status", "search", "status"):
        assert marks[name] == READ, name


@pytest.fixture
def svc(vault):
    s = make_service(vault)
    yield s
    s.close()


def test_a_write_holds_the_write_lock_for_its_whole_length(svc, monkeypatch):
    """While the operation runs, another thread cannot take the write lock."""
    from vault_sync.ops import touch as touch_op

    seen: list[bool] = []
    real = touch_op.touch

    def watched(engine, ref, boost):
        free = threading.Event()

        def try_lock() -> None:
            if svc.write_lock.acquire(blocking=False):
                svc.write_lock.release()
                free.set()

        probe = threading.Thread(target=try_lock)
        probe.start()
        probe.join()
        seen.append(free.is_set())
        return real(engine, ref, boost)

    monkeypatch.setattr(touch_op, "touch", watched)
    ref = svc.recent(limit=1)["items"][0]["path"]
    svc.touch(ref)
    assert seen == [False], "the write lock was free while touch ran"


def test_a_read_the_lists_missed_now_heals_a_damaged_index(svc):
    """`recent` was in no list: damage it met was raised as is; now the index is rebuilt and it answers."""
    before = svc.recent(limit=5)
    svc.store.db.execute("DROP TABLE notes")
    again = svc.recent(limit=5)
    assert [i["path"] for i in again["items"]] == [i["path"] for i in before["items"]]


def test_a_write_that_meets_damage_says_so_and_the_index_is_rebuilt(svc):
    ref = svc.recent(limit=1)["items"][0]["path"]
    svc.store.db.execute("DROP TABLE notes")
    with pytest.raises(IndexDamaged, match="check whether touch took effect"):
        svc.touch(ref)
    assert svc.recent(limit=1)["items"], "the index was rebuilt from the vault"
