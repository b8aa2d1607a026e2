"""One writer of background changes per vault across devices: a lease file with a heartbeat.

The vault syncs between devices (Obsidian Sync, Syncthing, iCloud, git); each device indexes
for itself, but only the lease holder sweeps, promotes and archives on a schedule, so two
devices never race to rewrite the same scores. Anything a person asks for still runs
everywhere: conditional writes keep those safe.
"""

from __future__ import annotations

import json
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from .dates import format_datetime, parse_datetime, utc_now
from .errors import UnsafePath
from .safe_files import read_file, remove_file, replace_file

LEASE_RELPATH = Path(".mnemovault") / "lease.json"


def device_id(config_dir: Path) -> str:
    """A stable id for this device, created once."""
    path = config_dir / "device_id"
    try:
        value = path.read_text(encoding="utf-8").strip()
        if value:
            return value
    except OSError:
        pass
    value = f"{socket.gethostname()}-{uuid.uuid4().hex[:8]}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value + "\n", encoding="utf-8")
    return value


# a live holder writes `expires` one term ahead of its clock; allow one more term for clock skew
# between devices (or a longer term set on another): anything further is impossible, so stale
_PLAUSIBLE_TERMS = 2


@dataclass
class LeaseState:
    held: bool
    holder: str | None
    expires: str | None
    problem: str | None = None  # why the lease file was not believed (an impossible expiry, a link)

    def to_dict(self) -> dict[str, Any]:
        out = {"held": self.held, "holder": self.holder, "expires": self.expires}
        if self.problem:
            out["problem"] = self.problem
        return out


def impossible_expiry(data: dict[str, Any], now: datetime, ttl: timedelta) -> str | None:
    """Why the lease `data` cannot be a live holder's (it expires beyond any term), or None."""
    expires = parse_datetime(data.get("expires"))
    if expires is None or expires - now <= ttl * _PLAUSIBLE_TERMS:
        return None
    return (
        f"the lease of device {str(data.get('device'))[:80]!r} expires at {format_datetime(expires)}, more than "
        f"{_PLAUSIBLE_TERMS} terms ({int(ttl.total_seconds())} s each) ahead, which no live device writes: "
        "treated as stale (another device may take it)"
    )


def read_lease(vault: Path) -> dict[str, Any] | None:
    """The lease file's content, read without following a link (UnsafePath for one); None when
    missing or not a JSON object."""
    try:
        data = json.loads(read_file(vault, LEASE_RELPATH.as_posix()).decode("utf-8"))
    except UnsafePath:
        raise
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def lease_problem(vault: Path, now: datetime, ttl_seconds: float) -> str | None:
    """What is wrong with this vault's lease file, for `status`'s problems; None when nothing."""
    try:
        data = read_lease(vault)
    except UnsafePath as exc:
        return str(exc)
    return impossible_expiry(data, now, timedelta(seconds=ttl_seconds)) if data else None


class Lease:
    def __init__(self, vault: Path, device: str, ttl_seconds: float, clock: Callable[[], datetime] = utc_now):
        self.vault = Path(vault)
        self.path = self.vault / LEASE_RELPATH
        self.device = device
        self.ttl = timedelta(seconds=ttl_seconds)
        self.clock = clock
        self.state = LeaseState(False, None, None)

    def _read(self) -> dict[str, Any] | None:
        try:
            return read_lease(self.vault)
        except UnsafePath:
            return None

    def acquire(self) -> LeaseState:
        """Take or renew the lease when it is free, expired, impossible or ours; report who
        holds it. A link planted at the lease file or its folder: UnsafePath, nothing written."""
        now = self.clock()
        current = read_lease(self.vault)
        problem = self.state.problem  # kept for this daemon's life: `status` shows what it met
        if current and current.get("device") != self.device:
            expires = parse_datetime(current.get("expires"))
            impossible = impossible_expiry(current, now, self.ttl)
            if expires is not None and expires > now and impossible is None:
                self.state = LeaseState(False, current.get("device"), current.get("expires"), problem)
                return self.state
            if impossible is not None:
                problem = f"{impossible}; taken over by this device at {format_datetime(now)}"
        data = {"device": self.device, "heartbeat": format_datetime(now), "expires": format_datetime(now + self.ttl)}
        # a random temp name, never a link (safe_files); the folder is made only under the vault's
        # root, so a vault deleted under a running daemon stays deleted
        replace_file(self.vault, LEASE_RELPATH.as_posix(), json.dumps(data).encode("utf-8"))
        confirmed = self._read() or {}
        held = confirmed.get("device") == self.device
        self.state = LeaseState(held, confirmed.get("device"), confirmed.get("expires"), problem)
        return self.state

    def release(self) -> None:
        current = self._read()
        if current and current.get("device") == self.device:
            try:
                remove_file(self.vault, LEASE_RELPATH.as_posix())
            except OSError:
                pass
        self.state = LeaseState(False, None, None)
