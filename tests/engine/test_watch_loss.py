"""A lost event stream is noticed and reconciled: the real kernel queue overflowing under a
paused daemon, a dead observer, a wall clock that jumped (sleep and resume)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from conftest import FIXED_NOW, index_dump, make_service, rebuild_dump
from daemon_util import QUIET_LIFECYCLE, Daemon, cli, wait_for

LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify and SIGSTOP")


def queue_limit() -> int:
    """The kernel's inotify queue length (16384 by default)."""
    try:
        return int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    except (OSError, ValueError):
        return 16384


def flood(vault: Path) -> None:
    """Fill the daemon's event queue with opens and closes of two dot-files (ignored notes):
    alternating the files keeps the kernel from merging repeats, so each is one queued event."""
    pairs = queue_limit() // 2 + 4000
    a, b = vault / ".flood-a", vault / ".flood-b"
    a.write_bytes(b"")
    b.write_bytes(b"")
    for _ in range(pairs):
        for path in (a, b):
            os.close(os.open(path, os.O_RDONLY))


def lost_changes(vault: Path, n: int) -> list[str]:
    """Changes made after the queue is full: new notes, an edit, a delete, a move."""
    folder = vault / "Lost"
    folder.mkdir()
    names = [f"Lost/Unseen note {i}.md" for i in range(n)]
    for i, rel in enumerate(names):
        (vault / rel).write_text(
            f"# Unseen {i}\n\nOverflowmarker{i} was written while nobody listened.\n", encoding="utf-8"
        )
    staging = vault / "STM" / "Staging runs Postgres 16.md"
    staging.write_text(staging.read_text(encoding="utf-8") + "\nEditedwhilepaused.\n", encoding="utf-8")
    victims = sorted((vault / "STM").glob("*.md"))
    victims[-1].unlink()
    victims[-2].rename(vault / "Lost" / victims[-2].name)
    return names


@LINUX
def test_a_real_queue_overflow_under_a_paused_daemon_is_reconciled(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        assert d.status()["watcher"]["last_reconcile"] is None
        os.kill(d.proc.pid, signal.SIGSTOP)
        try:
            flood(vault)
            names = lost_changes(vault, 200)
        finally:
            os.kill(d.proc.pid, signal.SIGCONT)

        def reconciled():
            # watchdog may report the overflow more than once; a later reconcile then finds
            # nothing left to do, so the lost changes are counted over every reconcile
            w = d.status()["watcher"]
            overflow = w["last_reconcile"] and "overflow" in w["last_reconcile"]["reason"]
            return w if overflow and w["missed_events"] >= 200 else None

        w = wait_for(reconciled, timeout=180, step=0.2)
        assert w, d.status()["watcher"]
        assert w["reconciles"] >= 1
        assert "overflow" in d.log_text()
        # the reconcile read the vault after every lost change: the index equals a rebuild
        expected = rebuild_dump(vault)
        assert wait_for(lambda: index_dump(d.index_path) == expected, timeout=60, step=0.2)
        found = d.get("/api/search", params={"q": "Overflowmarker137"}).json()
        assert [r["path"] for r in found["results"]][:1] == [names[137]], found
        shown = cli("status", "--vault", str(vault), env=d.env)
        assert shown.returncode == 0 and "events were lost (overflow" in shown.stdout, shown.stdout
    finally:
        d.close()


@pytest.fixture
def svc(vault):
    s = make_service(vault)
    yield s
    s.runtime.stop_watcher()
    s.close()


def test_a_dead_observer_is_restarted_and_the_vault_reconciled(svc, vault):
    watcher = svc.start_watcher(reconcile_interval=600.0, health_interval=3600.0)
    dead = watcher._observer
    dead.stop()  # the OS side of watching is gone: nothing is reported any more
    dead.join()
    (vault / "Unseen.md").write_text("written while no observer ran", encoding="utf-8")
    watcher.check_stream()
    assert wait_for(lambda: watcher.last_reconcile, timeout=30)
    assert watcher.last_reconcile["reason"] == "observer" and watcher.last_reconcile["changes"] == 1
    assert svc.store.note("Unseen.md") is not None
    assert watcher._observer is not dead and watcher._observer.is_alive()
    # and the new observer follows the vault again
    (vault / "Seen.md").write_text("written under the new observer", encoding="utf-8")
    assert wait_for(lambda: svc.store.note("Seen.md") is not None, timeout=30)
    assert svc.status()["watcher"]["last_reconcile"]["reason"] == "observer"


def test_a_wall_clock_jump_reconciles_and_status_says_when(svc, vault):
    wall = [FIXED_NOW.timestamp()]
    (vault / "Before resume.md").write_text("written while the machine slept", encoding="utf-8")  # no watcher yet
    watcher = svc.start_watcher(reconcile_interval=600.0, health_interval=0.05, wall_clock=lambda: wall[0])
    assert not watcher.wait_idle(0.3) or watcher.last_reconcile is None  # no jump, no reconcile
    assert svc.store.note("Before resume.md") is None
    wall[0] += 3600  # the wall clock moved an hour, the monotonic clock did not: a suspend
    assert wait_for(lambda: watcher.last_reconcile, timeout=30)
    assert svc.store.note("Before resume.md") is not None
    rec = svc.status()["watcher"]["last_reconcile"]
    assert rec["reason"] == "clock" and rec["changes"] == 1
    assert rec["at"] == "2026-11-20T13:00:00+00:00"
    assert svc.store.canonical_dump() == rebuild_dump(vault)


def test_a_dead_emitter_inside_a_live_observer_is_noticed(svc, vault):
    watcher = svc.start_watcher(reconcile_interval=600.0, health_interval=3600.0)
    observer = watcher._observer
    (emitter,) = observer.emitters
    emitter.stop()  # its thread ends; the observer thread itself lives on
    emitter.join()
    assert observer.is_alive()
    (vault / "Unseen.md").write_text("written while the emitter was gone", encoding="utf-8")
    watcher.check_stream()
    assert wait_for(lambda: watcher.last_reconcile, timeout=30)
    assert watcher.last_reconcile["reason"] == "observer" and svc.store.note("Unseen.md") is not None
    (vault / "Seen.md").write_text("written under the new observer", encoding="utf-8")
    assert wait_for(lambda: svc.store.note("Seen.md") is not None, timeout=30)
