"""Shared helpers of the reliability tests: vault hashing, memory ids, a foreign lease. The
daemon subprocess is tests/daemon_util.py, the index-versus-rebuild dump tests/conftest.py.

Every test file in this folder has a short form (default `pytest` run) and a long form:
set RELIABILITY_LONG=1 to run the long one by hand (not MNEMOVAULT_*: tests/conftest.py
clears every MNEMOVAULT_* variable so that a developer's settings never leak into tests).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

LONG = os.environ.get("RELIABILITY_LONG", "") not in ("", "0", "false")


def scale(short, long):
    return long if LONG else short


def vault_hashes(root: Path, skip=(".mnemovault/lease.json",)) -> dict[str, str]:
    """rel path -> sha256 of every file in the vault (symlinks: their target text), but the
    daemon's own bookkeeping: the lease, each device's heartbeat and the daemon's lock."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if rel in skip or rel.startswith(".mnemovault/devices/") or _daemon_lock(rel):
                continue
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _daemon_lock(rel: str) -> bool:
    return rel.startswith(".mnemovault/daemon-") and rel.endswith(".lock")


def memory_ids(vault: Path) -> dict[str, list[str]]:
    """id -> paths of every memory note (STM, LTM, Archive) on disk."""
    from vault_sync.note import parse_note

    out: dict[str, list[str]] = {}
    for folder in ("STM", "LTM", "Archive"):
        for p in (vault / folder).rglob("*.md"):
            note = parse_note(p.name, p.read_bytes())
            if note.fields.id:
                out.setdefault(note.fields.id, []).append(p.relative_to(vault).as_posix())
    return out


def lease_held_elsewhere(vault: Path, device: str = "another-device", seconds: float = 1500) -> None:
    """A lease held by another device (its heartbeat file): this vault's daemon then runs no
    background writes. Within two terms of the default lease (900 s): an expiry further ahead is
    impossible, so stale."""
    from datetime import timedelta

    from vault_sync.dates import format_datetime, utc_now
    from vault_sync.devices import Heartbeat, device_path, heartbeat_json

    now = utc_now()
    path = vault / device_path(device)
    path.parent.mkdir(parents=True, exist_ok=True)
    held = Heartbeat(device, device_path(device), True, now, now + timedelta(seconds=seconds), now)
    path.write_bytes(heartbeat_json(held))
    assert json.loads(path.read_text())["expires"] == format_datetime(held.expires)
