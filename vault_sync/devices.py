"""The devices of a vault, read from one file per device: `.mnemovault/devices/<device>.json`.

Each device's daemon writes only its own file (a heartbeat: when it was last seen, whether it
holds the lease, its term), so a sync engine never has two writers of one file and never makes
a conflict copy of mnemovault's own. Who holds the lease is decided by every device the same
way from the set of files: among the holders whose term has not expired (by the reader's clock,
and not expiring beyond any term), the earliest term holds; ties go to the smaller device id.

A `lease.json` left by an earlier version is read as a holder until it expires (it wins while
it lasts: that device does not read these files), and removed by the next holder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable

from .dates import format_datetime, parse_datetime
from .errors import UnsafePath
from .safe_files import list_folder, read_file
from .vault import conflict_original

CONFIG_DIR = ".mnemovault"
DEVICES_DIR = f"{CONFIG_DIR}/devices"
LEGACY_LEASE = f"{CONFIG_DIR}/lease.json"
# a live holder writes `expires` one term ahead of its clock; allow one more term for clock skew
# between devices (or a longer term set on another): anything further is impossible, so stale
PLAUSIBLE_TERMS = 2
SPLITS_KEPT = 10  # splits a holder keeps in its file
SPLIT_SHOWN = timedelta(days=7)  # how long `status` lists a split a holder recorded
_EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)  # a legacy lease's term: it wins while it lasts
_MAX_FILE = 64 * 1024


def file_name(device: str) -> str:
    """The file of `device` in the devices folder: its id with any unusual character as '_'."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", device)[:120].lstrip(".")
    return f"{safe or 'device'}.json"


def device_path(device: str) -> str:
    return f"{DEVICES_DIR}/{file_name(device)}"


@dataclass(frozen=True)
class Heartbeat:
    """One device's file as read (or the legacy lease.json, `legacy`)."""

    device: str
    path: str
    holding: bool = False
    term_start: datetime | None = None
    expires: datetime | None = None
    last_seen: datetime | None = None
    last_term: tuple[datetime, datetime] | None = None  # the latest term it held, kept after it stopped holding
    splits: tuple[dict[str, Any], ...] = ()  # overlapping terms of others it met while holding
    running: bool = True
    hostname: str | None = None
    version: str | None = None
    legacy: bool = False

    def impossible(self, now: datetime, ttl: timedelta) -> str | None:
        """Why this holder cannot be live (it expires beyond any term), or None."""
        if not self.holding or self.expires is None or self.expires - now <= ttl * PLAUSIBLE_TERMS:
            return None
        return (
            f"the lease of device {self.device[:80]!r} expires at {format_datetime(self.expires)}, more than "
            f"{PLAUSIBLE_TERMS} terms ({int(ttl.total_seconds())} s each) ahead, which no live device writes: "
            "treated as stale (another device may take it)"
        )

    def holds(self, now: datetime, ttl: timedelta) -> bool:
        """A live holder by the reader's clock."""
        if not self.holding or self.term_start is None or self.expires is None:
            return False
        return self.expires > now and self.impossible(now, ttl) is None

    def held(self) -> tuple[datetime, datetime] | None:
        """The period it said it held the lease: its current term, else its last one."""
        if self.holding and self.term_start is not None and self.expires is not None:
            return self.term_start, self.expires
        return self.last_term


def _when(value: Any) -> datetime | None:
    return parse_datetime(value) if isinstance(value, str) else None


def parse_heartbeat(path: str, data: dict[str, Any]) -> Heartbeat | None:
    """A device file's content, or None when it names no device."""
    device = data.get("device")
    if not isinstance(device, str) or not device.strip():
        return None
    last = data.get("last_term")
    last = last if isinstance(last, dict) else {}
    start, until = _when(last.get("start")), _when(last.get("until"))
    listed = data.get("splits")
    splits = [s for s in listed if isinstance(s, dict)] if isinstance(listed, list) else []
    text = {k: data[k][:200] if isinstance(data.get(k), str) else None for k in ("hostname", "version")}
    return Heartbeat(
        device=device[:200],
        path=path,
        holding=data.get("holding") is True,
        term_start=_when(data.get("term_start")),
        expires=_when(data.get("expires")),
        last_seen=_when(data.get("last_seen")),
        last_term=(start, until) if start and until and start <= until else None,
        splits=tuple(splits[:SPLITS_KEPT]),
        running=data.get("running") is not False,
        hostname=text["hostname"],
        version=text["version"],
    )


def parse_legacy(data: dict[str, Any]) -> Heartbeat | None:
    """An earlier version's lease.json: its device holds until `expires`."""
    device = data.get("device")
    if not isinstance(device, str) or not device.strip():
        return None
    return Heartbeat(
        device=device[:200],
        path=LEGACY_LEASE,
        holding=True,
        term_start=_EARLIEST,
        expires=_when(data.get("expires")),
        last_seen=_when(data.get("heartbeat")),
        legacy=True,
    )


def heartbeat_json(hb: Heartbeat) -> bytes:
    """The bytes of a device's own file."""
    data: dict[str, Any] = {
        "device": hb.device,
        "hostname": hb.hostname,
        "version": hb.version,
        "running": hb.running,
        "holding": hb.holding,
        "term_start": _fmt(hb.term_start),
        "expires": _fmt(hb.expires),
        "last_seen": _fmt(hb.last_seen),
        "last_term": {"start": _fmt(hb.last_term[0]), "until": _fmt(hb.last_term[1])} if hb.last_term else None,
        "splits": list(hb.splits),
    }
    return (json.dumps(data, indent=1) + "\n").encode("utf-8")


def _fmt(value: datetime | None) -> str | None:
    return format_datetime(value) if value is not None else None


def read_json(vault: Path, rel: str) -> dict[str, Any] | None:
    """A JSON object read without following a link (UnsafePath for one); None when missing,
    too large or not an object."""
    try:
        raw = read_file(vault, rel)
    except UnsafePath:
        raise
    except OSError:
        return None
    if len(raw) > _MAX_FILE:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


@dataclass
class Survey:
    """Every device file of a vault, the legacy lease, the conflict copies of the engine's
    files and what could not be read."""

    devices: dict[str, Heartbeat] = field(default_factory=dict)
    legacy: Heartbeat | None = None
    legacy_present: bool = False  # a lease.json is there (read or not): the next holder removes it
    conflict_copies: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, cause)


def survey(vault: Path) -> Survey:
    out = Survey()
    try:
        names = list_folder(vault, DEVICES_DIR)
    except (UnsafePath, OSError) as exc:
        out.problems.append((f"{DEVICES_DIR}/", str(exc)))
        names = []
    for name in names:
        if name.startswith(".") or not name.lower().endswith(".json"):
            continue  # a temp file being written, or not ours
        rel = f"{DEVICES_DIR}/{name}"
        error = None
        try:
            data = read_json(vault, rel)
        except UnsafePath as exc:
            data, error = None, str(exc)
        hb = parse_heartbeat(rel, data) if data else None
        if hb is not None and file_name(hb.device) == name and hb.device not in out.devices:
            out.devices[hb.device] = hb
        elif conflict_original(name, any_ext=True):
            out.conflict_copies.append(rel)  # never read as a device: each device rewrites its own file
        else:
            why = error or (
                f"names device {hb.device[:80]!r}, whose file is {file_name(hb.device)}" if hb else "names no device"
            )
            out.problems.append((rel, f"not read as a device file: {why}"))
    try:
        top = list_folder(vault, CONFIG_DIR)
    except (UnsafePath, OSError):
        top = []  # the engine refuses a linked .mnemovault/ at start; nothing to add here
    out.conflict_copies += [f"{CONFIG_DIR}/{n}" for n in top if conflict_original(n, any_ext=True)]
    if "lease.json" in top:
        out.legacy_present = True
        try:
            data = read_json(vault, LEGACY_LEASE)
            out.legacy = parse_legacy(data) if data else None
        except UnsafePath as exc:
            out.problems.append((LEGACY_LEASE, str(exc)))
    return out


def holder(candidates: Iterable[Heartbeat | None], now: datetime, ttl: timedelta) -> Heartbeat | None:
    """The lease holder among `candidates`: the earliest live term, ties to the smaller id."""
    live = [h for h in candidates if h is not None and h.holds(now, ttl)]
    return min(live, key=lambda h: (h.term_start or _EARLIEST, h.device), default=None)


def overlap(a: tuple[datetime, datetime], b: tuple[datetime, datetime]) -> tuple[datetime, datetime] | None:
    start, end = max(a[0], b[0]), min(a[1], b[1])
    return (start, end) if start < end else None


def splits(devices: Iterable[Heartbeat], now: datetime) -> list[dict[str, Any]]:
    """Periods two devices both held the lease: two files holding with overlapping terms, and
    those a holder recorded in its file (shown for SPLIT_SHOWN after it saw them)."""
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    holding = [h for h in devices if h.holding and h.held() is not None and not h.legacy]
    for i, a in enumerate(holding):
        for b in holding[i + 1 :]:
            both = overlap(a.held(), b.held())  # type: ignore[arg-type]
            if both:
                pair = sorted((a.device, b.device))
                found[(pair[0], pair[1], format_datetime(both[0]))] = _split(pair, both, a.path)
    for h in devices:
        for s in h.splits:
            seen, start, until = _when(s.get("seen")), _when(s.get("from")), _when(s.get("until"))
            other = s.get("device")
            if not (seen and start and until and isinstance(other, str)) or now - seen > SPLIT_SHOWN:
                continue
            pair = sorted((h.device, other[:200]))
            found.setdefault((pair[0], pair[1], format_datetime(start)), _split(pair, (start, until), h.path))
    return [found[k] for k in sorted(found)]


def _split(pair: list[str], period: tuple[datetime, datetime], path: str) -> dict[str, Any]:
    return {"devices": pair, "from": format_datetime(period[0]), "until": format_datetime(period[1]), "path": path}


def status(vault: Path, now: datetime, ttl_seconds: float, this_device: str | None = None) -> dict[str, Any]:
    """The devices section of `status`: who holds the lease and until when, every device's last
    heartbeat, conflict copies of the engine's files, splits; and its problems."""
    ttl = timedelta(seconds=ttl_seconds)
    seen = survey(vault)
    found = holder([*seen.devices.values(), seen.legacy], now, ttl)
    problems = [{"path": p, "cause": c} for p, c in seen.problems]
    for hb in [*seen.devices.values(), seen.legacy]:
        why = hb.impossible(now, ttl) if hb else None
        if hb and why:
            problems.append({"path": hb.path, "cause": why})
    both = splits(seen.devices.values(), now)
    for s in both:
        problems.append(
            {
                "path": s["path"],
                "cause": f"devices {s['devices'][0]!r} and {s['devices'][1]!r} both held the lease from {s['from']} "
                f"until {s['until']} (a network split longer than the lease): both may have run background writes",
            }
        )
    return {
        "this_device": this_device,
        "holder": None
        if found is None
        else {
            "device": found.device,
            "since": None if found.legacy else _fmt(found.term_start),
            "until": _fmt(found.expires),
            "legacy": found.legacy,
        },
        "devices": [_row(hb, now, ttl, this_device) for _, hb in sorted(seen.devices.items())],
        "conflict_copies": sorted(seen.conflict_copies),
        "splits": [{k: v for k, v in s.items() if k != "path"} for s in both],
        "problems": [dict(p, blocking=False) for p in problems],
    }


def _row(hb: Heartbeat, now: datetime, ttl: timedelta, this_device: str | None) -> dict[str, Any]:
    return {
        "device": hb.device,
        "hostname": hb.hostname,
        "version": hb.version,
        "this": hb.device == this_device,
        "holding": hb.holds(now, ttl),
        "running": hb.running and hb.last_seen is not None and now - hb.last_seen <= ttl,
        "last_seen": _fmt(hb.last_seen),
        "until": _fmt(hb.expires) if hb.holding else None,
    }
