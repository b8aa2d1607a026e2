"""Find the daemon serving a vault, or start one detached and wait for it.

Standard library only (plus bridge.paths and bridge.vault_lock): the MCP proxy imports this and must stay light,
so no engine, no httpx, no settings here."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .paths import bridge_file, log_dir, module, vault_key
from .vault_lock import bridge_via_lock


class DaemonUnavailable(Exception):
    """No daemon serves the vault and none could be started."""


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def live_bridge(vault: Path) -> dict[str, Any] | None:
    """The bridge file's content (port, token, pid) if its daemon process is alive: ours, or
    that of the daemon holding the vault's lock under another config folder."""
    try:
        info = json.loads(bridge_file(vault).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        info = None
    if not isinstance(info, dict) or not pid_alive(_pid(info)):
        info = bridge_via_lock(vault)
    if not isinstance(info, dict) or not pid_alive(_pid(info)):
        return None
    if not isinstance(info.get("port"), int) or not info.get("token"):
        return None
    return info


def _pid(info: dict[str, Any]) -> int:
    pid = info.get("pid")
    return pid if isinstance(pid, int) else -1


def listening(info: dict[str, Any], timeout: float = 2.0) -> bool:
    """Does the daemon accept connections yet? It writes the bridge file just before it
    listens, and listens only once its app has started; a bare connect costs well under a
    millisecond, where a status request would make the engine count the vault."""
    try:
        socket.create_connection(("127.0.0.1", info["port"]), timeout=timeout).close()
        return True
    except OSError:
        return False


def daemon_log(vault: Path) -> Path:
    """Where a daemon started by `mnemovault mcp` writes its stdout and stderr."""
    return log_dir() / f"daemon-{vault_key(vault)}.out"


# a daemon started by a relay (not by the person) stops after this long with no client: no
# relay, plugin or HTTP client holding a request or stream open (README "MCP set-up")
IDLE_EXIT_SECONDS = 900.0


def idle_exit_seconds() -> float:
    """MNEMOVAULT_IDLE_EXIT_SECONDS (0: never stop), else IDLE_EXIT_SECONDS."""
    raw = os.environ.get("MNEMOVAULT_IDLE_EXIT_SECONDS", "").strip()
    try:
        value = float(raw) if raw else IDLE_EXIT_SECONDS
    except ValueError:
        value = IDLE_EXIT_SECONDS
    return value if value >= 0 else IDLE_EXIT_SECONDS


def start_detached(vault: Path) -> subprocess.Popen[bytes]:
    """`mnemovault daemon --vault V` in its own session: it outlives this process, reads
    nothing from our stdin and writes nothing to our stdout (that is the MCP channel)."""
    out_path = daemon_log(vault)
    if not out_path.parent.exists():  # the log names notes and paths: only the user reads it
        out_path.parent.mkdir(parents=True, mode=0o700)
    with open(out_path, "ab") as out:
        kwargs: dict[str, Any] = {
            "stdin": subprocess.DEVNULL,
            "stdout": out,
            "stderr": subprocess.STDOUT,
            "close_fds": True,
        }
        if os.name == "nt":  # pragma: no cover - Windows
            kwargs["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        else:
            kwargs["start_new_session"] = True
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                module("bridge.cli"),
                "daemon",
                "--vault",
                str(vault),
                "--idle-exit",
                str(idle_exit_seconds()),
            ],
            **kwargs,
        )


# the daemon `prestart` started for a vault, which the next ensure_daemon waits for
_started: dict[Path, subprocess.Popen[bytes]] = {}


def prestart(vault: Path) -> None:
    """Start the vault's daemon now if none serves, before the relay imports the rest of
    itself (about a tenth of a second of CPU, more on a busy machine): the session's first
    save waits for the daemon's start. ensure_daemon then waits for this one."""
    try:
        info = live_bridge(vault)
        if info is None or not listening(info):
            _started[vault] = start_detached(vault)
    except OSError:
        pass  # ensure_daemon tries again and says what is wrong


def ensure_daemon(
    vault: Path, timeout: float = 120.0, start: bool = True, on_spawn: Callable[[], None] | None = None
) -> dict[str, Any]:
    """The live daemon's bridge info, starting the daemon if none runs. Two proxies racing
    both start one: the vault lock lets one win, the other exits, and both find the winner.
    `on_spawn` is called once the daemon's process exists, before it serves."""
    info = live_bridge(vault)
    if info is not None and listening(info):
        return info
    if not start:
        raise DaemonUnavailable(f"no mnemovault daemon serves {vault}")
    child = _started.pop(vault, None) or start_detached(vault)
    if on_spawn is not None:
        on_spawn()
    deadline = time.monotonic() + timeout
    exited_at = None
    while time.monotonic() < deadline:
        info = live_bridge(vault)
        if info is not None and listening(info):
            return info
        if exited_at is None and child.poll() is not None:
            exited_at = time.monotonic()
        if exited_at is not None and time.monotonic() - exited_at > 5.0:
            break  # ours died and no other daemon appeared in the meantime
        time.sleep(0.05)
    raise DaemonUnavailable(
        f"the mnemovault daemon for {vault} did not start; see {daemon_log(vault)}: {_tail(daemon_log(vault))}"
    )


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:]) or "(empty log)"
