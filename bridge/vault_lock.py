"""One daemon per vault on this machine, whatever its config folder: an OS lock on a file in
the vault (`.mnemovault/daemon-<host>.lock`) that also names the running daemon, so a
second one refuses naming it and a client with another config folder can find it.

The file is named after the machine because the vault may sync to other devices, each with
its own daemon: one device's file must never replace another's. The OS lock, not the
file's content, decides who holds it (a crashed daemon's lock is free again at once).

Standard library only: the MCP proxy imports this through daemon_start.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import sys
import time
from pathlib import Path
from typing import IO, Any


class LockHeld(Exception):
    """Another live daemon holds the vault's lock; the message names it."""


def host_name() -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", socket.gethostname())[:64] or "host"


def lock_path(vault: Path) -> Path:
    return Path(vault) / ".mnemovault" / f"daemon-{host_name()}.lock"


def _try_lock(fh: IO[Any], exclusive: bool) -> bool:
    """Take the OS lock without waiting; False when another process holds it."""
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows locks one byte, exclusively
            import msvcrt

            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fh.fileno(), (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _read(fh: IO[Any]) -> dict[str, Any]:
    fh.seek(0)
    try:
        data = json.loads(fh.read() or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def describe(info: dict[str, Any]) -> str:
    """The running daemon in a few words, for a refusal."""
    parts = [f"pid {info.get('pid', 'unknown')}"]
    if isinstance(info.get("port"), int):
        parts.append(f"port {info['port']}")
    if info.get("config"):
        parts.append(f"config folder {info['config']}")
    return ", ".join(parts)


class VaultLock:
    """Held by the daemon serving the vault for as long as it runs."""

    def __init__(self, vault: Path):
        self.vault = Path(vault)
        self.path = lock_path(vault)
        self.fh: IO[str] | None = None
        self.info: dict[str, Any] = {}

    def acquire(self, info: dict[str, Any]) -> None:
        """Take the lock and record `info` (pid, config folder, bridge file) in it; LockHeld
        naming the holder when another daemon has it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + 3.0
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            fh = os.fdopen(fd, "r+", encoding="utf-8")
            if not _try_lock(fh, exclusive=True):
                held_by = _read(fh)
                fh.close()
                if _alive(held_by.get("pid")) or time.monotonic() > deadline:
                    raise LockHeld(
                        f"another mnemovault daemon ({describe(held_by)}) already serves this vault "
                        f"(its lock: {self.path}); stop it first, or use that one"
                    )
                # a client looking (it holds the lock for an instant), or a daemon that has
                # not yet written who it is: look again
                time.sleep(0.02)
                continue
            try:
                same = os.path.samestat(os.fstat(fh.fileno()), os.stat(self.path))
            except OSError:
                same = False
            if same:
                self.fh = fh
                self.update(info)
                return
            fh.close()  # the file was replaced between our open and our lock: again
            if time.monotonic() > deadline:
                raise LockHeld(f"cannot take the daemon lock {self.path}: it keeps being replaced (a sync tool?)")

    def update(self, info: dict[str, Any]) -> None:
        """Record more about this daemon (its port, once bound)."""
        if self.fh is None:
            return
        self.info.update(info)
        self.fh.seek(0)
        self.fh.truncate()
        self.fh.write(json.dumps(self.info))
        self.fh.flush()

    def release(self) -> None:
        if self.fh is not None:
            try:
                self.fh.seek(0)
                self.fh.truncate()  # the file stays (removing a lock file races a new holder)
            except OSError:
                pass
            self.fh.close()
            self.fh = None


def holder(vault: Path) -> dict[str, Any] | None:
    """What the daemon holding the vault's lock on this machine recorded, if one holds it."""
    try:
        fh = open(lock_path(vault), encoding="utf-8")
    except OSError:
        return None
    with fh:
        if _try_lock(fh, exclusive=False):
            return None  # nobody holds it: a stale file
        return _read(fh)


def bridge_via_lock(vault: Path) -> dict[str, Any] | None:
    """The bridge info (port, token) of the daemon holding the vault's lock, when it runs
    under another config folder of this user. The lock file is in the vault, which others
    may write: its bridge file is used only if it is a regular file of ours naming this
    vault and the lock holder's pid."""
    info = holder(vault)
    if not info or not isinstance(info.get("bridge"), str):
        return None
    path = Path(info["bridge"])
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            return None
        bridge = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(bridge, dict) or bridge.get("pid") != info.get("pid"):
        return None
    try:
        if Path(str(bridge.get("vault"))).resolve() != Path(vault).resolve():
            return None
    except OSError:
        return None
    return bridge
