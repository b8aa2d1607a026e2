"""One daemon per vault on this machine, whatever its config folder: an OS lock on a file in
the vault (`.mnemovault/daemon-<host>.lock`), and beside it, in this user's private folder
outside the vault (`pointer_dir`), a file naming the running daemon (pid, port, config
folder), so a second one refuses naming it and a client with another config folder can find
it. The lock file itself stays empty: it syncs to every device, which must not learn a home
path, a port or a pid.

The file is named after the machine because the vault may sync to other devices, each with
its own daemon: one device's file must never replace another's. The OS lock, not the
file's content, decides who holds it (a crashed daemon's lock is free again at once).

Standard library only: the MCP proxy imports this through daemon_start (it only reads: `holder`,
`bridge_via_lock`). Taking the lock, which only a daemon does, writes through
vault_sync/safe_files.py (by way of the facade, vault_sync/service.py), imported there.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from .paths import vault_key

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


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


def pointer_dir() -> Path | None:
    """This user's private folder on this machine for what a running daemon says about itself
    (pid, port, config folder): outside the vault, so no sync peer learns or forges it, and the
    same whatever the config folder. None when it cannot be made private (then a daemon under
    another config folder is not found, and a refusal names no pid)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        folder = Path(runtime) / "mnemovault"
    else:
        who = str(os.getuid()) if hasattr(os, "getuid") else re.sub(r"\W", "_", os.environ.get("USERNAME", "user"))
        folder = Path(tempfile.gettempdir()) / f"mnemovault-{who}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        return None  # a link, or another user's folder squatting the name
    if os.name != "nt" and stat.S_IMODE(st.st_mode) & 0o077:
        return None
    return folder


def pointer_name(vault: Path) -> str:
    return f"daemon-{vault_key(vault)}.json"


def _read_pointer(vault: Path) -> dict[str, Any]:
    folder = pointer_dir()
    if folder is None:
        return {}
    try:
        fd = os.open(folder / pointer_name(vault), os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            data = json.loads(fh.read(65536).decode("utf-8")) if stat.S_ISREG(os.fstat(fd).st_mode) else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class VaultLock:
    """Held by the daemon serving the vault for as long as it runs. The lock file in the vault
    stays empty (it syncs to every device); who holds it is in this user's pointer folder."""

    def __init__(self, vault: Path):
        self.vault = Path(vault)
        self.path = lock_path(vault)
        self.fh: IO[str] | None = None
        self.info: dict[str, Any] = {}

    def acquire(self, info: dict[str, Any]) -> None:
        """Take the lock and record `info` (pid, config folder, bridge file) in the pointer file;
        LockHeld naming the holder when another daemon has it; UnsafePath when a link (symbolic
        or hard) or a linked folder is where the lock file goes (nothing is written through it)."""
        from vault_sync.service import open_lock  # a daemon's part (the daemon has the engine): the relay stays light

        rel = self.path.relative_to(self.vault).as_posix()
        deadline = time.monotonic() + 3.0
        while True:
            fh = os.fdopen(open_lock(self.vault, rel), "r+", encoding="utf-8")
            if not _try_lock(fh, exclusive=True):
                fh.close()
                held_by = _read_pointer(self.vault)
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
                same = os.path.samestat(os.fstat(fh.fileno()), os.lstat(self.path))
            except OSError:
                same = False
            if same:
                self.fh = fh
                fh.truncate(0)  # a lock file of an older version published pid, port and home path
                self.update(info)
                return
            fh.close()  # the file was replaced between our open and our lock: again
            if time.monotonic() > deadline:
                raise LockHeld(f"cannot take the daemon lock {self.path}: it keeps being replaced (a sync tool?)")

    def update(self, info: dict[str, Any]) -> None:
        """Record more about this daemon (its port, once bound) in the pointer file."""
        if self.fh is None:
            return
        from vault_sync.service import replace_file

        self.info.update(info)
        folder = pointer_dir()
        if folder is not None:
            data = json.dumps({**self.info, "vault": str(self.vault.resolve())}).encode("utf-8")
            replace_file(folder, pointer_name(self.vault), data, mode=0o600)

    def release(self) -> None:
        if self.fh is not None:
            from vault_sync.service import remove_file

            folder = pointer_dir()
            if folder is not None and _read_pointer(self.vault).get("pid") == self.info.get("pid"):
                try:
                    remove_file(folder, pointer_name(self.vault))
                except OSError:
                    pass
            self.fh.close()  # the file stays (removing a lock file races a new holder)
            self.fh = None


def holder(vault: Path) -> dict[str, Any] | None:
    """What the daemon holding the vault's lock on this machine recorded, if one holds it."""
    path = lock_path(vault)
    try:  # never through a link, never blocking on a pipe planted there
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, encoding="utf-8") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or _try_lock(fh, exclusive=False):
            return None  # nobody holds it: a stale file
    return _read_pointer(vault)


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
