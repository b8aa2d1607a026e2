"""kill -9 the daemon at random moments while it sweeps, promotes and archives (and while a
client consolidates memories by id through the bridge), then check the vault and restart:

- every note parses (no torn file), each memory id exists exactly once;
- no temp file is visible to Obsidian (our temp files are dot-files; none without the dot);
- after a restart (recover() runs at daemon start) no journal entry is left, every moved
  note carries its new state (LTM: promoted, Archive: archived), and the index equals a
  rebuild from scratch.

Consolidation by explicit ids needs no embeddings, so it is exercised here; clustering
(which needs the model) is not part of the crash test.

Short form (default run): 3 trials on a 200-note vault. Long form, by hand:
    RELIABILITY_LONG=1 .venv/bin/python -m pytest tests/reliability/test_crash.py -q -s
runs 25 trials on 400-note vaults (set RELIABILITY_TRIALS to change it).
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from pathlib import Path

import pytest
from _harness import memory_ids, scale
from conftest import index_dump, rebuild_dump
from daemon_util import Daemon

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

TRIALS = int(os.environ.get("RELIABILITY_TRIALS") or scale(3, 25))
NOTES = scale(200, 400)
# sweeps in chunks of 16, each written into the previous chunk's old copies: kills land in that too
ENV = dict(
    MNEMOVAULT_QUIET_SECONDS=0,
    MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS=1,
    MNEMOVAULT_LEASE_SECONDS=3,
    MNEMOVAULT_AUTO_PROMOTE="true",
    MNEMOVAULT_AUTO_GC="true",
    MNEMOVAULT_SWEEP_CHUNK=16,
)


def _consolidator(daemon: Daemon, vault: Path, rng: random.Random, stop: threading.Event) -> None:
    """Merge random pairs of STM memories through the bridge until told to stop (or the daemon dies)."""
    while not stop.is_set():
        stm = sorted(p.relative_to(vault).as_posix() for p in (vault / "STM").glob("*.md"))
        if len(stm) < 2:
            return
        pair = rng.sample(stm, 2)
        try:
            daemon.post("/api/rpc", {"op": "consolidate", "args": {"ids": pair, "apply": True}}, timeout=10)
        except Exception:  # noqa: BLE001 - the daemon is being killed under us
            return
        stop.wait(0.05)


def _check_disk(vault: Path) -> dict:
    from vault_sync.note import parse_note

    visible_temp = [str(p) for p in vault.rglob("*") if ".mvtmp-" in p.name and not p.name.startswith(".")]
    assert not visible_temp, f"temp files visible to Obsidian: {visible_temp}"
    torn = []
    for p in vault.rglob("*.md"):
        rel = p.relative_to(vault).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        note = parse_note(rel, p.read_bytes())
        if not note.writable:
            torn.append((rel, [x.cause for x in note.problems]))
    assert not torn, f"notes that no longer parse: {torn}"
    ids = memory_ids(vault)
    dupes = {i: ps for i, ps in ids.items() if len(ps) > 1}
    assert not dupes, f"memory ids on more than one note: {dupes}"
    return ids


def _check_states(vault: Path) -> None:
    from vault_sync.note import parse_note

    for folder, status in (("LTM", "promoted"), ("Archive", "archived")):
        for p in (vault / folder).glob("*.md"):
            note = parse_note(p.name, p.read_bytes())
            if note.fields.id:
                assert note.fields.status == status, f"{folder}/{p.name} has status {note.fields.status}"
    journal = vault / ".mnemovault" / "journal"
    left = list(journal.glob("*.json")) if journal.is_dir() else []
    assert not left, f"journal entries left after recovery: {left}"


def _trial(base: Path, seed: int) -> dict:
    from bridge.bench.generate import generate
    from vault_sync.dates import utc_now

    rng = random.Random(seed)
    vault = base / f"vault-{seed}"
    generate(vault, NOTES, utc_now(), seed=seed)
    ids_before = memory_ids(vault)
    home = base / f"home-{seed}"
    daemon = Daemon(vault, home, **ENV).start(timeout=90)
    stop = threading.Event()
    helper = None
    if rng.random() < 0.5:
        helper = threading.Thread(target=_consolidator, args=(daemon, vault, rng, stop), daemon=True)
        helper.start()
    time.sleep(rng.uniform(0.0, 2.5))  # the first lifecycle round starts ~1 s after the worker
    journal = vault / ".mnemovault" / "journal"
    in_flight = len(list(journal.glob("*.json"))) if journal.is_dir() else 0
    daemon.kill()
    stop.set()
    if helper is not None:
        helper.join(15)
    ids_after_kill = _check_disk(vault)
    lost = set(ids_before) - set(ids_after_kill)
    assert not lost, f"memories lost by the crash: {sorted(lost)[:5]}"
    # restart: recover() finishes or rolls back the interrupted moves, the watcher and a sync catch up
    daemon.start(timeout=90)
    time.sleep(1.5)
    assert daemon.stop() == 0, daemon.output()[-2000:]
    ids_final = _check_disk(vault)
    assert not set(ids_before) - set(ids_final)
    _check_states(vault)
    assert index_dump(daemon.index_path) == rebuild_dump(vault), "index differs from a rebuild after restart"
    moved = sum(1 for i, ps in ids_after_kill.items() if i in ids_before and ps != ids_before[i])
    return {
        "seed": seed,
        "moved_before_kill": moved,
        "journal_in_flight": in_flight,
        "consolidating": helper is not None,
    }


def test_kill_9_at_random_moments(tmp_path):
    seed0 = int(os.environ.get("RELIABILITY_SEED", "1000"))
    results = []
    for i in range(TRIALS):
        results.append(_trial(tmp_path, seed0 + i))
    mid = sum(1 for r in results if r["journal_in_flight"])
    print(
        f"\ncrash trials: {len(results)}, killed with a move in flight: {mid}, "
        f"notes moved before the kill: {[r['moved_before_kill'] for r in results]}"
    )
    assert any(r["moved_before_kill"] for r in results), "no trial killed the daemon while it was working"
