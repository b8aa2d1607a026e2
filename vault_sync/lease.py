"""One writer of background changes per vault across devices: a lease decided from one
heartbeat file per device (vault_sync/devices.py).

The vault syncs between devices (Obsidian Sync, Syncthing, iCloud, git); each device indexes
for itself, but only the lease holder sweeps, promotes and archives on a schedule, so two
devices never race to rewrite the same scores. Anything a person asks for still runs
everywhere: conditional writes keep those safe. Each device writes only its own file, so a
split network never makes a conflict copy of the lease; a split longer than the lease lets two
devices hold it, which the holder that keeps it records in its file for `status`.
"""

from __future__ import annotations

import socket
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from . import devices
from .dates import format_datetime, utc_now
from .devices import LEGACY_LEASE, Heartbeat
from .errors import UnsafePath
from .safe_files import remove_file, replace_file
from .vault import conflict_original


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
    problem: str | None = None  # why a lease file was not believed (an impossible expiry, a link)
    since: str | None = None  # the holder's term start

    def to_dict(self) -> dict[str, Any]:
        out = {"held": self.held, "holder": self.holder, "expires": self.expires, "since": self.since}
        if self.problem:
            out["problem"] = self.problem
        return out


class Lease:
    def __init__(
        self,
        vault: Path,
        device: str,
        ttl_seconds: float,
        clock: Callable[[], datetime] = utc_now,
        version: str | None = None,
    ):
        self.vault = Path(vault)
        self.device = device
        self.rel = devices.device_path(device)
        self.path = self.vault / self.rel
        self.ttl = timedelta(seconds=ttl_seconds)
        self.clock = clock
        self.version = version
        self.state = LeaseState(False, None, None)
        self._term: tuple[datetime, datetime] | None = None  # this device's current term (start, expires)
        self._last: Heartbeat | None = None  # what this device last wrote

    def _live_term(self, own: Heartbeat | None, now: datetime) -> datetime | None:
        """The start of this device's term when it still holds one (kept across renewals and a restart
        within the term)."""
        if self._term is not None and self._term[1] > now:
            return self._term[0]
        if own is not None and own.holds(now, self.ttl):
            return own.term_start
        return None

    def acquire(self) -> LeaseState:
        """Write this device's heartbeat, holding the lease when no other live holder has an
        earlier term; report who holds it. A link planted at this device's file or its folder:
        UnsafePath, nothing written. Other devices' files are only read, never through a link."""
        now = self.clock()
        seen = devices.survey(self.vault)
        own = seen.devices.pop(self.device, None)
        legacy = seen.legacy if seen.legacy is not None and seen.legacy.device != self.device else None
        others = [*seen.devices.values(), legacy]
        term = self._live_term(own, now)
        base = own or self._last
        # a term in this device's file that ended unreleased (a hard stop) stays as its last term:
        # a holder that meets it later still sees a split it took part in
        ended = own.held() if own is not None and own.holding and term is None else None
        me = Heartbeat(
            device=self.device,
            path=self.rel,
            holding=True,
            term_start=term or now,
            expires=now + self.ttl,
            last_seen=now,
            last_term=ended or (base.last_term if base else None),
            splits=base.splits if base else (),
            hostname=socket.gethostname()[:200],
            version=self.version,
        )
        winner = devices.holder([*others, me], now, self.ttl)
        held = winner is me
        stale = [why for hb in others if hb is not None for why in [hb.impossible(now, self.ttl)] if why]
        problem = self.state.problem  # kept for this daemon's life: `status` shows what it met
        if held and stale:
            problem = f"{stale[0]}; taken over by this device at {format_datetime(now)}"
        if held:
            me = replace(me, splits=self._splits(me, seen.devices.values(), now))
        else:
            stepped_down = (term, now) if term is not None else me.last_term
            me = replace(me, holding=False, term_start=None, expires=None, last_term=stepped_down)
        # a random temp name, never a link (safe_files); the folder is made only under the vault's
        # root, so a vault deleted under a running daemon stays deleted
        replace_file(self.vault, self.rel, devices.heartbeat_json(me))
        self._last = me
        self._term = (me.term_start, me.expires) if held and me.term_start and me.expires else None
        if held:
            self._tidy(seen)
        assert winner is not None  # `me` is always a live candidate
        self.state = LeaseState(
            held,
            winner.device,
            format_datetime(winner.expires) if winner.expires else None,
            problem,
            None if winner.legacy or winner.term_start is None else format_datetime(winner.term_start),
        )
        return self.state

    def _splits(self, me: Heartbeat, others: Any, now: datetime) -> tuple[dict[str, Any], ...]:
        """The splits this holder keeps in its file: each other device that says it held the lease
        during this term (a network split longer than the lease let both write)."""
        kept = list(me.splits)
        known = {(s.get("device"), s.get("from")) for s in kept}
        mine = me.held()
        for hb in others:
            theirs = hb.held()
            both = devices.overlap(mine, theirs) if mine and theirs else None
            if both is None:
                continue
            entry = {
                "device": hb.device,
                "from": format_datetime(both[0]),
                "until": format_datetime(both[1]),
                "seen": format_datetime(now),
            }
            if (entry["device"], entry["from"]) not in known:
                known.add((entry["device"], entry["from"]))
                kept.append(entry)
        return tuple(kept[-devices.SPLITS_KEPT :])

    def _tidy(self, seen: devices.Survey) -> None:
        """The holder removes what no device reads any more: an earlier version's lease.json and
        conflict copies of device files or of it (each device rewrites its own file)."""
        gone = [LEGACY_LEASE] if seen.legacy_present else []
        for rel in seen.conflict_copies:
            name = rel.rsplit("/", 1)[-1]
            if rel.startswith(devices.DEVICES_DIR + "/") or conflict_original(name, any_ext=True) == "lease.json":
                gone.append(rel)
        for rel in gone:
            try:
                remove_file(self.vault, rel)  # the name only: a link is removed, never its target
            except (OSError, UnsafePath):
                pass

    def release(self) -> None:
        """Stop: this device's file says it no longer runs and, for a holder, that its term ended
        now, so another device takes over at its next round."""
        last = self._last
        self.state = LeaseState(False, None, None)
        if last is None:
            return
        now = self.clock()
        ended = (last.term_start, now) if last.holding and last.term_start else last.last_term
        gone = replace(
            last, holding=False, running=False, term_start=None, expires=None, last_seen=now, last_term=ended
        )
        self._term, self._last = None, gone
        try:
            replace_file(self.vault, self.rel, devices.heartbeat_json(gone))
        except (OSError, UnsafePath):
            pass
