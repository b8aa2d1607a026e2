"""Issue 40's run, through real Syncthing: two vault copies, an engine holding a lease on each
(the daemon's round: acquire, then the lifecycle when held), a person appending lines and
editing their own keys on both, an assistant saving and using memories on both, a split longer
than the lease, then promotion and gc on the lease holder and the holder stopped. At the end,
with both copies in sync: no conflict copy left by mnemovault, none of the person's lines lost
or only in a copy, no memory lost or duplicated, every stored id resolving, every use counted
once, the same answers to the same searches, and a quiet day on each device."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from syncthing_pair import BINARY, Pair, files_of
from syncthing_util import MEMORY_FOLDERS, config_of, conflict_copies, device_service, heal, ids_of, split

from vault_sync.dates import utc_now
from vault_sync.lease import Lease
from vault_sync.note import parse_note

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BINARY is None, reason="syncthing is not installed (apt-get install syncthing)"),
]

LEASE = 60.0  # seconds: a split of 120 s on the engines' clocks outlasts it
SETTLE = 30.0
TEXTS = {
    "promo": "The release train leaves every second Tuesday at noon from the main branch.",
    "desk": "Backups of the wiki run hourly to the NAS in the basement cupboard.",
    "laptop": "The staging database is refreshed from production every Sunday night.",
    "old": "The old VPN gateway answers on port 1194 until the migration is finished.",
    "lunch": "The team lunch is on the first Thursday of every month at the canteen.",
}
DESK_LINE = "Checked on the desk: the NAS keeps 30 days of snapshots."
LAPTOP_LINE = "Checked on the laptop: the refresh takes about forty minutes."
LUNCH_LINE = "Moved to the second Thursday in December."


class Device:
    """One device: its engine on its own clock, its lease, and the daemon's round."""

    def __init__(self, vault, index, name: str):
        # the wall clock at the start: a synced file's arrival is told by its ctime (ops/ids.py)
        self.start = utc_now()
        self.offset = 0.0
        self.vault = vault
        self.svc = device_service(
            vault,
            index,
            clock=self.now,
            auto_gc=True,
            lease_seconds=LEASE,
            duplicate_settle_seconds=SETTLE,
        )
        self.lease: Lease = self.svc.runtime.hold_lease(config_of(self.svc), clock=self.now)
        self.name = name

    def now(self):
        return self.start + timedelta(seconds=self.offset)

    def round(self, step: float = 20.0) -> dict[str, Any] | None:
        """The daemon's lifecycle round (bridge/server.py _lifecycle), `step` seconds later."""
        self.offset += step
        self.svc.sync()
        if not self.lease.acquire().held:
            return None
        return self.svc.run_lifecycle()

    def stop(self) -> None:
        self.lease.release()
        self.svc.close()


def _append(vault, rel: str, line: str, key: str | None = None) -> None:
    """The person's edit in Obsidian: a line at the end, maybe a key of their own."""
    path = vault / rel
    text = path.read_text(encoding="utf-8")
    if key:
        text = text.replace("---\n", f"---\n{key}\n", 1)
    path.write_text(text.rstrip("\n") + f"\n\n{line}\n", encoding="utf-8")


def _memories(vault) -> dict[str, list[str]]:
    """id -> every path holding it."""
    out: dict[str, list[str]] = {}
    for rel, mid in ids_of(vault).items():
        out.setdefault(mid, []).append(rel)
    return out


def _note_of(dev: Device, mid: str):
    (row,) = dev.svc.get_memory([mid])
    return parse_note(row["path"], (dev.vault / row["path"]).read_bytes())


def _settle(pair: Pair, a: Device, b: Device, rounds: int = 6) -> None:
    """Daemon rounds on both devices until the copies are in sync with no conflict copy left."""
    for _ in range(rounds):
        pair.sync()
        a.round()
        b.round()
        pair.sync()
        a.svc.sync()
        b.svc.sync()
        if not conflict_copies(a.vault) and not conflict_copies(b.vault) and _no_duplicates(a, b):
            return
        a.offset += SETTLE  # a move still in flight settles once the wait is over
        b.offset += SETTLE


def _no_duplicates(a: Device, b: Device) -> bool:
    return all(len(paths) == 1 for dev in (a, b) for paths in _memories(dev.vault).values())


def _writes_in_a_day(dev: Device) -> dict[str, int]:
    """Rounds every 5 minutes for a day on this device's copy alone: writes per note."""
    counts: dict[str, int] = {}
    before = files_of(dev.vault)
    held = 0
    for _ in range(288):
        held += dev.round(step=300.0) is not None
        after = files_of(dev.vault)
        for rel in set(before) | set(after):
            if rel.split("/", 1)[0] in MEMORY_FOLDERS and before.get(rel) != after.get(rel):
                counts[rel] = counts.get(rel, 0) + 1
        before = after
    assert held >= 287, f"{dev.name} held the lease in {held} rounds of 288"  # its own day, not the other's
    return counts


def test_two_devices_through_syncthing_split_longer_than_the_lease(tmp_path):
    pair = Pair(tmp_path)
    a = b = None
    try:
        for v in (pair.a.vault, pair.b.vault):
            for folder in ("STM", "LTM"):
                (v / folder).mkdir(exist_ok=True)
        a = Device(pair.a.vault, tmp_path / "index-a.sqlite3", "desk")
        b = Device(pair.b.vault, tmp_path / "index-b.sqlite3", "laptop")
        assert a.round() is not None  # the desk holds the lease
        ids = {k: a.svc.save(t)["note"]["id"] for k, t in TEXTS.items() if k != "laptop"}
        ids["laptop"] = b.svc.save(TEXTS["laptop"])["note"]["id"]
        pair.sync()
        a.svc.sync()
        assert b.round() is None  # the laptop sees the desk's term
        uses = {k: 1 for k in ids}

        split(pair)
        # the person: a line on each device, each to a memory the other device's assistant uses
        _append(a.vault, _note_of(a, ids["desk"]).path, DESK_LINE)
        _append(b.vault, _note_of(b, ids["laptop"]).path, LAPTOP_LINE, key="owner: sam")
        # a line on a memory the laptop's assistant reviews (a write that is not a use): one
        # note, both sides written, only one side's text changed: a sync-conflict copy
        _append(a.vault, _note_of(a, ids["lunch"]).path, LUNCH_LINE)
        before = (b.vault / _note_of(b, ids["lunch"]).path).read_bytes()
        b.svc.review_memory(ids["lunch"], "fade")
        assert (b.vault / _note_of(b, ids["lunch"]).path).read_bytes() != before
        # and writes use_count 0 on the old one on both sides (never used: gc archives it)
        for dev in (a, b):
            rel = _note_of(dev, ids["old"]).path
            path = dev.vault / rel
            path.write_text(path.read_text(encoding="utf-8").replace("use_count: 1", "use_count: 0"), "utf-8")
        uses["old"] = 0
        # the assistant: uses on both sides, a new memory on each
        for dev, n in ((a, 2), (b, 3)):
            for _ in range(n):
                dev.svc.touch(ids["promo"])
        uses["promo"] += 5
        b.svc.touch(ids["desk"])
        a.svc.touch(ids["laptop"])
        uses["desk"] += 1
        uses["laptop"] += 1
        ids["desk_new"] = a.svc.save("The coffee machine on floor two is descaled on Fridays.")["note"]["id"]
        ids["laptop_new"] = b.svc.save("The printer in room 4 needs the blue driver on Linux.")["note"]["id"]
        uses["desk_new"] = uses["laptop_new"] = 1
        # the split outlasts the lease: the desk renews, the laptop claims once the desk's term is over
        for _ in range(6):
            assert a.round() is not None
        held_b = [b.round() is not None for _ in range(6)]
        assert held_b[-1], "the laptop claims the lease during the split"
        for dev in (a, b):  # both promoted and archived on their own side
            assert _note_of(dev, ids["promo"]).path.startswith("LTM/")
            assert _note_of(dev, ids["old"]).path.startswith("Archive/")

        heal(pair)
        _settle(pair, a, b)
        assert b.round() is None, "the earlier term keeps the lease after the heal"
        for dev in (a, b):  # the split that let both write is listed on both devices
            splits = dev.svc.status()["devices"]["splits"]
            assert [sorted(s["devices"]) for s in splits] == [["device-vault-a", "device-vault-b"]], splits

        # promotion and gc on the holder after the heal
        for _ in range(2):
            a.svc.touch(ids["desk_new"])
        uses["desk_new"] += 2
        rel = _note_of(b, ids["laptop_new"]).path
        path = b.vault / rel
        path.write_text(path.read_text(encoding="utf-8").replace("use_count: 1", "use_count: 0"), "utf-8")
        uses["laptop_new"] = 0
        pair.sync()
        report = a.round()
        assert report is not None
        assert [m["id"] for m in report["promote"]["promoted"]] == [ids["desk_new"]], report["promote"]
        assert [m["id"] for m in report["gc"]["archived"]] == [ids["laptop_new"]], report["gc"]
        pair.sync()

        # the holder stops: the laptop takes over at its next round
        a.stop()
        pair.sync()
        assert b.round() is not None
        b.svc.touch(ids["promo"])
        uses["promo"] += 1
        pair.sync()
        a = Device(pair.a.vault, tmp_path / "index-a.sqlite3", "desk")  # the desk starts again
        a.offset = b.offset
        _settle(pair, a, b)

        # the figures, with both copies in sync
        assert files_of(a.vault) == files_of(b.vault)
        assert conflict_copies(a.vault) == [] == conflict_copies(b.vault)  # 0 conflict files
        for dev in (a, b):
            held = _memories(dev.vault)
            assert sorted(held) == sorted(ids.values()), (held, ids)  # 0 memories lost, each with its first id
            assert all(len(paths) == 1 for paths in held.values()), held  # 0 duplicated
            for key, mid in ids.items():
                note = _note_of(dev, mid)  # every stored id resolves
                assert (dev.vault / note.path).exists()
                assert note.fields.use_count == uses[key], (key, note.fields)  # every use counted once
            assert _note_of(dev, ids["desk"]).body.count(DESK_LINE) == 1  # the person's lines, each once
            laptop = _note_of(dev, ids["laptop"])
            assert laptop.body.count(LAPTOP_LINE) == 1 and laptop.frontmatter.get("owner") == "sam"
            lunch = _note_of(dev, ids["lunch"])
            assert lunch.body.count(LUNCH_LINE) == 1 and lunch.path.startswith("STM/")
        # the conflict copies Syncthing made were merged by the lease holder (kept in .trash/)
        merged = sorted(rel for rel in files_of(a.vault) if rel.startswith(".trash/") and ".sync-conflict-" in rel)
        assert any(rel.startswith(".trash/The team lunch") for rel in merged), (merged, _note_of(a, ids["lunch"]).text)
        assert any(rel.startswith(".trash/LTM Index") for rel in merged), merged
        assert a.svc.status()["conflicts_merged"]["count"] + b.svc.status()["conflicts_merged"]["count"] == len(merged)
        for query in (
            "release train",
            "NAS backups",
            "staging database",
            "VPN gateway",
            "printer driver",
            "team lunch",
        ):
            found = [
                [r["id"] for r in dev.svc.search(query, scope="all", include_archived=True)["results"]]
                for dev in (a, b)
            ]
            assert found[0] and found[0] == found[1], (query, found)
        assert _note_of(a, ids["promo"]).path.startswith("LTM/")

        # the quiet vault: a day from time alone on each device's copy, <= 1 write per note
        split(pair)
        for dev in (b, a):
            counts = _writes_in_a_day(dev)
            assert max(counts.values(), default=0) <= 1, (dev.name, counts)
            dev.stop()
    finally:
        for dev in (a, b):
            if dev is not None:
                try:
                    dev.svc.close()
                except Exception:  # noqa: BLE001 - closed already
                    pass
        pair.stop()
