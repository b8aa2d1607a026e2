"""Live sync with the real watchdog observer: the index follows the vault, no echo."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import hypothesis.strategies as st
import pytest
from conftest import SAMPLE, make_service, rebuild_dump
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from vault_sync.watcher import VaultWatcher


def settle(svc, watcher, timeout: float = 8.0) -> bool:
    """Wait until the index equals a rebuild (events arrive asynchronously)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if not watcher.wait_idle(timeout=2):
            continue
        if svc.store.canonical_dump() == rebuild_dump(svc.layout.root):
            return True
    return False


@pytest.fixture
def live(vault):
    svc = make_service(vault)
    watcher = svc.start_watcher(reconcile_interval=600.0)
    yield svc, watcher
    svc.runtime.stop_watcher()
    svc.close()


def test_editor_save_patterns_are_followed(live, vault):
    svc, watcher = live
    note = vault / "Inbox.md"
    note.write_text("first version zebra", encoding="utf-8")  # created + closed
    with open(note, "w", encoding="utf-8") as fh:  # in place: truncate, then write
        fh.write("second version giraffe")
    tmp = vault / ".Inbox.md.tmp"  # atomic save: temp file, then rename over the note
    tmp.write_text("third version okapi", encoding="utf-8")
    os.replace(tmp, note)
    assert settle(svc, watcher)
    assert svc.store.query("SELECT rowid FROM fts WHERE fts MATCH 'okapi'")
    assert not svc.store.query("SELECT rowid FROM fts WHERE fts MATCH 'giraffe'")


def test_folder_move_rename_and_delete(live, vault):
    svc, watcher = live
    os.rename(vault / "Projects", vault / "Work")
    assert settle(svc, watcher)
    assert svc.store.note("Work/Atlas project.md") is not None
    shutil.move(str(vault / "Work"), str(vault.parent / "outside"))  # moved out of the vault
    assert settle(svc, watcher)
    assert svc.store.note("Work/Atlas project.md") is None
    (vault / "Daily" / "2026-11-19.md").unlink()
    assert settle(svc, watcher)


def test_burst_of_files(live, vault):
    svc, watcher = live
    folder = vault / "Burst"
    folder.mkdir()
    for i in range(1000):
        (folder / f"n{i}.md").write_text(f"burst note {i}", encoding="utf-8")
    assert settle(svc, watcher, timeout=30)
    assert svc.store.one("SELECT count(*) FROM notes WHERE path LIKE 'Burst/%'")[0] == 1000


def test_engine_write_causes_no_echo(live, vault):
    svc, watcher = live
    assert settle(svc, watcher)
    seen = []
    svc.indexer.on_changes = lambda changes: seen.extend(changes) or svc._on_changes(changes)
    path = vault / "STM" / "Lena takes oat milk in her coffee.md"
    svc.touch("STM/Lena takes oat milk in her coffee.md")
    own = list(seen)
    assert [c.path for c in own] == ["STM/Lena takes oat milk in her coffee.md"]  # the one upsert
    mtime = path.stat().st_mtime_ns
    time.sleep(0.5)  # the watcher receives the rename event of our atomic write
    assert watcher.wait_idle()
    assert seen == own, "the watcher re-processed the engine's own write"
    assert path.stat().st_mtime_ns == mtime, "the engine wrote again"
    assert svc.sweep()["written"] == 0


def test_batched_sweep_under_the_live_watcher_causes_no_echo(empty_vault, monkeypatch):
    from datetime import timedelta

    from conftest import FIXED_NOW

    import vault_sync.batch as batch

    monkeypatch.setattr(batch, "SYNCFS_FROM", 5)  # the syncfs + RENAME_EXCHANGE path
    for i in range(40):
        last = (FIXED_NOW - timedelta(days=1 + i % 7)).strftime("%Y-%m-%dT%H:%M:%SZ")
        (empty_vault / "STM" / f"m{i}.md").write_text(
            f"---\nid: 00000000-0000-4000-8000-{i:012d}\ncreated: 2026-11-01T00:00:00Z\nlast_used: {last}\n"
            f"use_count: 2\nstrength: 1.0\nstatus: active\ndecay_score: 0.5\nreview_priority: 0.0\n---\nnote {i}\n",
            encoding="utf-8",
        )
    svc = make_service(empty_vault, quiet_seconds=0, sweep_chunk=10)  # later chunks write into the old copies
    watcher = VaultWatcher(svc.indexer, svc.layout)
    watcher.start()
    try:
        assert settle(svc, watcher)
        seen = []
        svc.indexer.on_changes = lambda changes: seen.extend(changes)
        assert svc.sweep()["written"] == 40
        own = list(seen)
        time.sleep(0.5)
        assert watcher.wait_idle()
        assert seen == own, "the watcher re-processed the sweep's writes"
        assert all(c.type == "indexed" for c in seen)  # an exchanged-out old copy is not a delete
        assert settle(svc, watcher)
        assert [n for n in os.listdir(empty_vault / "STM") if n.startswith(".")] == []
    finally:
        watcher.stop()
        svc.close()


def test_safety_reconcile_catches_what_the_watcher_missed(vault):
    svc = make_service(vault)
    watcher = VaultWatcher(svc.indexer, svc.layout, reconcile_interval=0.5)
    watcher.start()
    watcher._observer.stop()  # simulate the OS dropping every event
    watcher._observer.join()
    (vault / "Missed.md").write_text("dropped event", encoding="utf-8")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and svc.store.note("Missed.md") is None:
        time.sleep(0.05)
    assert svc.store.note("Missed.md") is not None
    assert watcher.missed_events >= 1
    watcher._observer = None
    watcher.stop()
    svc.close()


NAMES = st.sampled_from(["alpha", "beta", "gamma", "Δelta", "e e"])
FOLDERS = st.sampled_from(["", "STM/", "Projects/", "Deep/er/"])
WORDS = st.text(alphabet="abcdefgh xyz\n#[]", min_size=0, max_size=40)


class VaultMachine(RuleBasedStateMachine):
    """Random edits by a person and by the engine while the watcher runs."""

    def __init__(self):
        super().__init__()
        import tempfile

        self.tmp = Path(tempfile.mkdtemp())
        self.vault = self.tmp / "vault"
        shutil.copytree(SAMPLE / "STM", self.vault / "STM")
        self.svc = make_service(self.vault)
        self.watcher = VaultWatcher(self.svc.indexer, self.svc.layout)
        self.watcher.start()

    def notes(self) -> list[Path]:
        return sorted(
            p for p in self.vault.rglob("*.md") if not any(x.startswith(".") for x in p.relative_to(self.vault).parts)
        )

    @rule(folder=FOLDERS, name=NAMES, body=WORDS)
    def create(self, folder, name, body):
        path = self.vault / folder / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")

    @precondition(lambda self: self.notes())
    @rule(data=st.data(), body=WORDS, atomic=st.booleans())
    def edit(self, data, body, atomic):
        path = data.draw(st.sampled_from(self.notes()))
        text = path.read_text(encoding="utf-8", errors="replace") + body
        if atomic:
            tmp = path.with_name(f".{path.name}.swp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        else:
            path.write_text(text, encoding="utf-8")

    @precondition(lambda self: self.notes())
    @rule(data=st.data(), folder=FOLDERS, name=NAMES)
    def move(self, data, folder, name):
        src = data.draw(st.sampled_from(self.notes()))
        dst = self.vault / folder / f"{name} moved.md"
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.exists():
            os.rename(src, dst)

    @rule(new=st.sampled_from(["Renamed", "Other"]))
    def rename_folder(self, new):
        folders = [p for p in self.vault.iterdir() if p.is_dir() and p.name not in ("STM", new)]
        if folders and not (self.vault / new).exists():
            os.rename(folders[0], self.vault / new)

    @precondition(lambda self: self.notes())
    @rule(data=st.data())
    def delete(self, data):
        data.draw(st.sampled_from(self.notes())).unlink()

    @rule()
    def engine_write(self):
        memories = [
            r["path"]
            for r in self.svc.store.query("SELECT path FROM notes WHERE kind='stm' AND writable=1 AND id IS NOT NULL")
        ]
        if memories:
            try:
                self.svc.touch(memories[0])
            except Exception:
                pass  # the note may have been moved or deleted a moment ago: that is the person's right

    @invariant()
    def never_crashes(self):
        assert self.watcher.last_error is None, self.watcher.last_error

    def teardown(self):
        try:
            assert settle(self.svc, self.watcher), "index differs from a rebuild after the sequence"
        finally:
            self.watcher.stop()
            self.svc.close()
            shutil.rmtree(self.tmp, ignore_errors=True)


TestVaultMachine = VaultMachine.TestCase
TestVaultMachine.settings = settings(
    max_examples=12, stateful_step_count=12, deadline=None, suppress_health_check=list(HealthCheck)
)
