"""What the Syncthing tests share: a device's service, the vault's memories, conflict copies, a
network split and its heal, and the split-promote-heal-settle sequence of test_syncthing.py."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from syncthing_pair import Pair, files_of

from vault_sync.dates import utc_now
from vault_sync.note import parse_note
from vault_sync.service import MemoryService
from vault_sync.settings import load_settings
from vault_sync.vault import conflict_original

MEMORY_FOLDERS = ("STM", "LTM", "Archive")


def device_service(
    vault: Path, index: Path, ahead: float = 0.0, clock: Callable[[], datetime] | None = None, **overrides: Any
) -> MemoryService:
    """A device's engine with its own device id (its own config folder); `clock` or the wall
    clock `ahead` seconds."""
    opts: dict[str, Any] = {"embeddings": False, "quiet_seconds": 0, "auto_gc": False, **overrides}
    settings = load_settings(vault=vault, index_path=index, **opts)
    svc = MemoryService(settings, clock=clock or (lambda: utc_now() + timedelta(seconds=ahead)))
    config = index.parent / f"config-{vault.name}"
    config.mkdir(exist_ok=True)
    (config / "device_id").write_text(f"device-{vault.name}\n", encoding="utf-8")
    svc.runtime.know_device(config)
    return svc


def config_of(svc: MemoryService) -> Path:
    return svc.settings.index_path.parent / f"config-{svc.layout.root.name}"


def ids_of(vault: Path) -> dict[str, str]:
    """path -> id of every memory note in the vault's memory folders."""
    out = {}
    for rel, data in files_of(vault).items():
        if rel.endswith(".md") and rel.split("/", 1)[0] in MEMORY_FOLDERS:
            note = parse_note(rel, data)
            if note.fields.id:
                out[rel] = note.fields.id
    return out


def conflict_copies(vault: Path) -> list[str]:
    """Conflict copies in the vault (those mnemovault settled and moved to .trash/ left out)."""
    return [
        rel for rel in files_of(vault) if not rel.startswith(".trash/") and conflict_original(rel.rsplit("/", 1)[-1])
    ]


def wait_indexed(svc: MemoryService, watcher: Any, mid: str, where: str) -> None:
    deadline = time.monotonic() + 60
    rows: list[Any] = []
    while time.monotonic() < deadline:
        watcher.wait_idle(timeout=2)
        rows = svc.store.query("SELECT path FROM notes WHERE id = ?", (mid,))
        if [r["path"] for r in rows] == [where]:
            return
        time.sleep(0.1)
    raise AssertionError(f"{mid} not indexed at {where} alone: {[r['path'] for r in rows]}")


def split(pair: Pair) -> None:
    pair.a.pause(pair.b)
    pair.b.pause(pair.a)
    Pair.wait(lambda: not pair.a.connected(pair.b) and not pair.b.connected(pair.a), "the split")


def heal(pair: Pair) -> None:
    pair.a.resume(pair.b)
    pair.b.resume(pair.a)
    Pair.wait(lambda: pair.a.connected(pair.b) and pair.b.connected(pair.a), "the heal")
    pair.sync()


def setup_pair(pair: Pair, tmp_path: Path) -> tuple[MemoryService, MemoryService, dict[str, Any]]:
    """One memory saved and used 3 times on device a, seen by device b."""
    for v in (pair.a.vault, pair.b.vault):
        for folder in ("STM", "LTM"):
            (v / folder).mkdir(exist_ok=True)
    a = device_service(pair.a.vault, tmp_path / "index-a.sqlite3")
    saved = a.save("The on-call rotation hands over every Monday at 09:00 in the ops channel.")["note"]
    for _ in range(3):
        a.touch(saved["id"])
    pair.sync()
    b = device_service(pair.b.vault, tmp_path / "index-b.sqlite3")
    b.sync()
    assert b.get_memory([saved["id"]])[0]["path"] == saved["path"]
    return a, b, saved


def split_promote_heal_settle(
    pair: Pair, tmp_path: Path, a: MemoryService, b: MemoryService, saved: dict[str, Any], uses_a: int, uses_b: int
) -> tuple[str, MemoryService]:
    """Device a promotes the memory and uses it `uses_a` times while device b, split from it,
    uses it `uses_b` times; after the heal device a, past the settle wait, settles the copy
    left in STM/. Returns the promoted path and device a's later service (the caller closes it)."""
    split(pair)
    moved = a.promote(saved["id"])
    dst = moved["promoted"][0]["to"] if "promoted" in moved else moved["to"]
    for _ in range(uses_a):
        a.touch(saved["id"])
    for _ in range(uses_b):
        b.touch(saved["id"])
    heal(pair)
    a.sync()
    b.sync()
    later = device_service(pair.a.vault, tmp_path / "index-a.sqlite3", ahead=a.settings.duplicate_settle_seconds + 5)
    later.sync()  # device a, past the wait: the copy left in STM/ settles
    pair.sync()
    b.sync()
    return dst, later
