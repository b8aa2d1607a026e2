"""One writer of background changes per vault across devices: a lease file with a heartbeat.

The vault syncs between devices (Obsidian Sync, Syncthing, iCloud, git); each device indexes
for itself, but only the lease holder sweeps, promotes and archives on a schedule, so two
devices never race to rewrite the same scores. Anything a person asks for still runs
everywhere: conditional writes keep those safe.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from .dates import format_datetime, parse_datetime, utc_now
from .writer import removed_on_failure

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


@dataclass
class LeaseState:
    held: bool
    holder: str | None
    expires: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"held": self.held, "holder": self.holder, "expires": self.expires}


class Lease:
    def __init__(self, vault: Path, device: str, ttl_seconds: float, clock: Callable[[], datetime] = utc_now):
        self.path = vault / LEASE_RELPATH
        self.device = device
        self.ttl = timedelta(seconds=ttl_seconds)
        self.clock = clock
        self.state = LeaseState(False, None, None)

    def _read(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else None
        except (OSError, ValueError):
            return None

    def acquire(self) -> LeaseState:
        """Take or renew the lease when it is free, expired or ours; report who holds it."""
        now = self.clock()
        current = self._read()
        if current and current.get("device") != self.device:
            expires = parse_datetime(current.get("expires"))
            if expires is not None and expires > now:
                self.state = LeaseState(False, current.get("device"), current.get("expires"))
                return self.state
        data = {"device": self.device, "heartbeat": format_datetime(now), "expires": format_datetime(now + self.ttl)}
        # never `parents`: a vault folder deleted under a running daemon must stay deleted
        self.path.parent.mkdir(exist_ok=True)
        tmp = self.path.with_name(f".lease.{self.device}.tmp")
        with removed_on_failure(tmp):  # a full disk must not leave a half-written temp file behind
            tmp.write_text(json.dumps(data), encoding="utf-8")
            os.replace(tmp, self.path)
        confirmed = self._read() or {}
        held = confirmed.get("device") == self.device
        self.state = LeaseState(held, confirmed.get("device"), confirmed.get("expires"))
        return self.state

    def release(self) -> None:
        current = self._read()
        if current and current.get("device") == self.device:
            try:
                self.path.unlink()
            except OSError:
                pass
        self.state = LeaseState(False, None, None)
