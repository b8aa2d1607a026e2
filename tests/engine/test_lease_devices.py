"""The lease from one heartbeat file per device (issue 40, items 2 and 4): each device writes
only `.mnemovault/devices/<device>.json`; every device decides the holder the same way (the
earliest live term); a holder renews without a new term, releases on stop, and records a split
that let two devices hold; `status` shows the devices, conflict copies of their files and a
split. Real files in temp vaults, fixed clocks; "sync" is a copy of the devices folder."""

from __future__ import annotations

import json
import os
import shutil
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import FIXED_NOW, make_service

from vault_sync import devices
from vault_sync.dates import format_datetime
from vault_sync.errors import UnsafePath
from vault_sync.lease import Lease

T0 = FIXED_NOW
TTL = 900


def at(seconds: float):
    return lambda: T0 + timedelta(seconds=seconds)


def lease(vault: Path, device: str, clock) -> Lease:
    return Lease(vault, device, TTL, clock=clock, version="9.9.9")


def file_of(vault: Path, device: str) -> dict:
    return json.loads((vault / ".mnemovault" / "devices" / f"{device}.json").read_text(encoding="utf-8"))


def sync_devices(a: Path, b: Path) -> None:
    """What a sync engine does with the devices folder: each device's own file travels both ways."""
    for src, dst in ((a, b), (b, a)):
        folder = dst / ".mnemovault" / "devices"
        folder.mkdir(parents=True, exist_ok=True)
        for p in (src / ".mnemovault" / "devices").glob("*.json"):
            if not (folder / p.name).exists() or p.stat().st_mtime_ns > (folder / p.name).stat().st_mtime_ns:
                shutil.copy2(p, folder / p.name)


@pytest.fixture
def two(tmp_path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    for v in (a, b):
        (v / "STM").mkdir(parents=True)
    return a, b


def test_the_earliest_live_term_holds_and_the_other_defers(empty_vault):
    desk = lease(empty_vault, "desk", at(0)).acquire()
    assert desk.held and desk.holder == "desk" and desk.since == format_datetime(T0)
    laptop = lease(empty_vault, "laptop", at(60)).acquire()
    assert (
        not laptop.held and laptop.holder == "desk" and laptop.expires == format_datetime(T0 + timedelta(seconds=TTL))
    )
    mine = file_of(empty_vault, "laptop")  # the deferring device still writes its heartbeat
    assert mine["holding"] is False and mine["term_start"] is None and mine["last_seen"] == format_datetime(at(60)())
    assert file_of(empty_vault, "desk")["holding"] is True
    assert not (empty_vault / ".mnemovault" / "lease.json").exists()


def test_the_same_terms_give_the_same_holder_on_every_device_ties_to_the_smaller_id(two):
    a, b = two
    lease(a, "zeta", at(0)).acquire()  # both claim in the same second, before either file travels
    lease(b, "alpha", at(0)).acquire()
    sync_devices(a, b)
    on_a = lease(a, "zeta", at(30)).acquire()
    on_b = lease(b, "alpha", at(30)).acquire()
    assert (on_a.held, on_a.holder) == (False, "alpha") and (on_b.held, on_b.holder) == (True, "alpha")


def test_a_holder_renews_its_term_without_a_new_start(empty_vault):
    clock = {"now": T0}
    held = Lease(empty_vault, "desk", TTL, clock=lambda: clock["now"])
    assert held.acquire().since == format_datetime(T0)
    clock["now"] = T0 + timedelta(seconds=300)
    state = held.acquire()
    assert state.held and state.since == format_datetime(T0)
    assert state.expires == format_datetime(T0 + timedelta(seconds=300 + TTL))
    data = file_of(empty_vault, "desk")
    assert data["term_start"] == format_datetime(T0) and data["last_seen"] == format_datetime(clock["now"])
    # a daemon restarted within its term carries on with the same term (read from its own file)
    again = lease(empty_vault, "desk", at(600)).acquire()
    assert again.held and again.since == format_datetime(T0)
    # restarted after its term ran out (a hard stop): a new term, the old one kept as its last
    fresh = lease(empty_vault, "desk", at(600 + TTL + 1)).acquire()
    assert fresh.held and fresh.since == format_datetime(at(600 + TTL + 1)())
    assert file_of(empty_vault, "desk")["last_term"] == {
        "start": format_datetime(T0),
        "until": format_datetime(at(600 + TTL)()),
    }


def test_a_stopped_holder_hands_over_at_once_and_a_dead_one_after_expiry(empty_vault):
    desk = lease(empty_vault, "desk", at(0))
    assert desk.acquire().held
    assert not lease(empty_vault, "laptop", at(10)).acquire().held
    desk.release()  # a clean stop: its file says the term ended now
    data = file_of(empty_vault, "desk")
    assert data["holding"] is False and data["running"] is False
    assert data["last_term"] == {"start": format_datetime(T0), "until": format_datetime(T0)}
    taken = lease(empty_vault, "laptop", at(20)).acquire()
    assert taken.held and taken.since == format_datetime(at(20)())
    # the laptop dies without releasing: the desk waits for its term to expire
    assert not lease(empty_vault, "desk", at(20 + TTL - 1)).acquire().held
    after = lease(empty_vault, "desk", at(20 + TTL)).acquire()
    assert after.held and after.holder == "desk"
    assert devices.status(empty_vault, at(20 + TTL)(), TTL)["splits"] == []  # a hand-over is no split


def test_a_split_longer_than_the_lease_is_recorded_and_in_status(two):
    a, b = two
    lease(a, "desk", at(0)).acquire()
    sync_devices(a, b)
    assert not lease(b, "laptop", at(60)).acquire().held
    # the network splits: each side stops hearing the other; after the term the laptop claims
    lease(a, "desk", at(300)).acquire()
    lease(a, "desk", at(600)).acquire()
    taken = lease(b, "laptop", at(TTL + 10)).acquire()
    assert taken.held
    lease(a, "desk", at(TTL + 20)).acquire()
    # any front end reading both files: both hold, overlapping terms
    sync_devices(a, b)
    seen = devices.status(b, at(TTL + 30)(), TTL)
    assert seen["splits"] == [
        {
            "devices": ["desk", "laptop"],
            "from": format_datetime(at(TTL + 10)()),
            "until": format_datetime(at(TTL + 10 + TTL)()),
        }
    ]
    # the heal: the earlier term keeps the lease; the laptop steps down
    assert not lease(b, "laptop", at(TTL + 40)).acquire().held
    stepped = file_of(b, "laptop")
    assert stepped["holding"] is False and stepped["last_term"]["start"] == format_datetime(at(TTL + 10)())
    holder = lease(a, "desk", at(TTL + 50))
    state = holder.acquire()
    assert state.held and state.since == format_datetime(T0)
    recorded = file_of(a, "desk")["splits"]
    assert [(s["device"], s["from"]) for s in recorded] == [("laptop", format_datetime(at(TTL + 10)()))]
    sync_devices(a, b)
    # the laptop's step-down already travelled: only the desk's record shows the split now, on both
    for v in (a, b):
        svc = make_service(v, now=at(TTL + 60)())
        try:
            st = svc.status()
            split = [p for p in st["problems"] if "both held the lease" in p["cause"]]
            assert len(split) == 1 and "'desk' and 'laptop'" in split[0]["cause"], st["problems"]
            assert split[0]["path"] == ".mnemovault/devices/desk.json" and split[0]["blocking"] is False
            assert st["devices"]["holder"]["device"] == "desk"
        finally:
            svc.close()
    holder.acquire()  # renewing does not record it twice
    assert len(file_of(a, "desk")["splits"]) == 1
    later = devices.status(a, at(TTL + 60)() + devices.SPLIT_SHOWN + timedelta(hours=1), TTL)
    assert later["splits"] == []  # a recorded split is shown for a week


def test_status_shows_the_holder_and_every_device(empty_vault, tmp_path):
    lease(empty_vault, "desk", at(-30)).acquire()
    svc = make_service(empty_vault, now=T0)
    try:
        svc.runtime.hold_lease(tmp_path / "config", version="9.9.9", clock=lambda: T0)
        me = svc.runtime.lease.device
        assert svc.runtime.lease.acquire().held is False
        st = svc.status()
        section = st["devices"]
        assert section["holder"] == {
            "device": "desk",
            "since": format_datetime(at(-30)()),
            "until": format_datetime(at(-30 + TTL)()),
            "legacy": False,
        }
        assert section["this_device"] == me
        rows = {r["device"]: r for r in section["devices"]}
        assert rows["desk"]["holding"] is True and rows["desk"]["last_seen"] == format_datetime(at(-30)())
        assert rows[me] == {
            "device": me,
            "hostname": rows[me]["hostname"],
            "version": "9.9.9",
            "this": True,
            "holding": False,
            "running": True,
            "last_seen": format_datetime(T0),
            "until": None,
        }
        assert st["lease"]["holder"] == "desk" and st["lease"]["held"] is False
    finally:
        svc.close()


def test_a_conflict_copy_of_a_device_file_is_never_a_device_and_is_listed_then_removed(empty_vault):
    lease(empty_vault, "laptop", at(0)).acquire()
    folder = empty_vault / ".mnemovault" / "devices"
    # a copy that, read as a device, would hold with the earliest term
    forged = {"device": "desk", "holding": True, "term_start": format_datetime(at(-500)()), "expires": None}
    forged["expires"] = format_datetime(at(600)())
    copy = folder / "desk.sync-conflict-20261120-115000-ABCDEF7.json"
    copy.write_text(json.dumps(forged), encoding="utf-8")
    lease_copy = empty_vault / ".mnemovault" / "lease.sync-conflict-20261120-115000-ABCDEF7.json"
    lease_copy.write_text("{}", encoding="utf-8")
    seen = devices.status(empty_vault, at(10)(), TTL)
    assert seen["conflict_copies"] == [
        ".mnemovault/devices/desk.sync-conflict-20261120-115000-ABCDEF7.json",
        ".mnemovault/lease.sync-conflict-20261120-115000-ABCDEF7.json",
    ]
    assert [r["device"] for r in seen["devices"]] == ["laptop"] and seen["holder"]["device"] == "laptop"
    assert seen["problems"] == []
    svc = make_service(empty_vault, now=at(10)())
    try:
        assert len(svc.status()["devices"]["conflict_copies"]) == 2
    finally:
        svc.close()
    state = lease(empty_vault, "laptop", at(20)).acquire()  # the holder renews and tidies
    assert state.held and state.since == format_datetime(T0)
    assert not copy.exists() and not lease_copy.exists()
    assert devices.status(empty_vault, at(30)(), TTL)["conflict_copies"] == []


def test_a_legacy_lease_is_honoured_until_it_expires_then_removed(empty_vault):
    legacy = empty_vault / ".mnemovault" / "lease.json"
    legacy.parent.mkdir()
    old = {"device": "old-desk", "heartbeat": format_datetime(T0), "expires": format_datetime(at(600)())}
    legacy.write_text(json.dumps(old), encoding="utf-8")
    state = lease(empty_vault, "laptop", at(10)).acquire()
    assert (state.held, state.holder, state.since) == (False, "old-desk", None)
    assert devices.status(empty_vault, at(10)(), TTL)["holder"]["legacy"] is True
    assert legacy.exists()
    state = lease(empty_vault, "laptop", at(601)).acquire()
    assert state.held and state.holder == "laptop"
    assert not legacy.exists()  # removed by the new holder: nothing reads it any more


@pytest.mark.parametrize(
    "content",
    [b"not json", b"[1, 2]", b'{"device": 7}', b'{"device": "x", "expires": "soon"}', b"\xff\xfe"],
    ids=["text", "list", "no-device", "bad-date", "bytes"],
)
def test_a_broken_legacy_lease_never_crashes_and_is_removed(empty_vault, content):
    legacy = empty_vault / ".mnemovault" / "lease.json"
    legacy.parent.mkdir()
    legacy.write_bytes(content)
    assert devices.status(empty_vault, T0, TTL)["holder"] is None
    assert lease(empty_vault, "laptop", at(0)).acquire().held
    assert not legacy.exists()


def test_an_impossible_expiry_is_stale_and_a_problem(empty_vault):
    folder = empty_vault / ".mnemovault" / "devices"
    folder.mkdir(parents=True)
    forged = {"device": "far", "holding": True, "term_start": "2000-01-01T00:00:00Z", "expires": "9999-12-31T00:00:00Z"}
    (folder / "far.json").write_text(json.dumps(forged), encoding="utf-8")
    seen = devices.status(empty_vault, T0, TTL)
    assert seen["holder"] is None
    assert len(seen["problems"]) == 1 and "9999" in seen["problems"][0]["cause"]
    state = lease(empty_vault, "laptop", at(0)).acquire()
    assert state.held and "9999" in (state.problem or "") and "taken over" in (state.problem or "")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")
def test_a_linked_device_file_is_refused(empty_vault, tmp_path):
    outside = tmp_path / "outside.json"
    claim = {"device": "desk", "holding": True, "term_start": format_datetime(at(-100)()), "expires": None}
    claim["expires"] = format_datetime(at(500)())
    outside.write_text(json.dumps(claim), encoding="utf-8")
    before = (outside.read_bytes(), os.stat(outside).st_mtime_ns)
    folder = empty_vault / ".mnemovault" / "devices"
    folder.mkdir(parents=True)
    (folder / "desk.json").symlink_to(outside)  # another device's file: never read through the link
    seen = devices.status(empty_vault, T0, TTL)
    assert seen["holder"] is None and seen["devices"] == []
    assert [p["path"] for p in seen["problems"]] == [".mnemovault/devices/desk.json"]
    assert "symbolic link" in seen["problems"][0]["cause"]
    assert lease(empty_vault, "laptop", at(0)).acquire().held
    (folder / "laptop.json").unlink()
    (folder / "laptop.json").symlink_to(outside)  # this device's own file: nothing written through it
    with pytest.raises(UnsafePath, match=r"\.mnemovault/devices/laptop\.json is a symbolic link"):
        lease(empty_vault, "laptop", at(10)).acquire()
    assert (outside.read_bytes(), os.stat(outside).st_mtime_ns) == before


def test_an_odd_device_id_gets_a_plain_file_name(empty_vault):
    state = lease(empty_vault, "../../etc/passwd ü", at(0)).acquire()
    assert state.held
    names = [p.name for p in (empty_vault / ".mnemovault" / "devices").iterdir()]
    assert names == ["_.._etc_passwd__.json"]
    assert devices.status(empty_vault, T0, TTL)["holder"]["device"] == "../../etc/passwd ü"


def test_the_cli_status_names_the_holder_the_other_devices_and_the_copies(empty_vault):
    from typer.testing import CliRunner

    from bridge.cli import app
    from vault_sync.dates import utc_now

    now = utc_now()  # the CLI reads the wall clock: terms around it
    lease(empty_vault, "desk", lambda: now - timedelta(seconds=30)).acquire()
    lease(empty_vault, "laptop", lambda: now - timedelta(seconds=20)).acquire()
    copy = empty_vault / ".mnemovault" / "devices" / "desk.sync-conflict-20261120-115000-ABCDEF7.json"
    copy.write_text("{}", encoding="utf-8")
    r = CliRunner().invoke(app, ["status", "--vault", str(empty_vault)])
    assert r.exit_code == 0, r.output
    since, until = now - timedelta(seconds=30), now - timedelta(seconds=30 - TTL)
    assert f"lease: desk since {format_datetime(since)}, until {format_datetime(until)}" in r.output
    assert f"device laptop: running, last seen {format_datetime(now - timedelta(seconds=20))}" in r.output
    assert "1 conflict copies of mnemovault's own files" in r.output and copy.name in r.output
    r = CliRunner().invoke(app, ["status", "--vault", str(empty_vault), "--json"])
    assert json.loads(r.output)["devices"]["holder"]["device"] == "desk"


def test_a_term_that_expired_while_the_daemon_was_down_stays_in_its_file(two):
    """The laptop held during a split, then stopped hard; restarted after its term, it defers,
    and its file still says when it held, so the desk records the split when the files meet."""
    a, b = two
    lease(a, "desk", at(0)).acquire()
    lease(b, "laptop", at(TTL + 10)).acquire()  # split: the desk's file never arrived here
    for seconds in (600, 1200):
        assert lease(a, "desk", at(seconds)).acquire().since == format_datetime(T0)
    sync_devices(a, b)
    assert not lease(b, "laptop", at(1900)).acquire().held  # restarted after its term ended
    data = file_of(b, "laptop")
    assert data["last_term"] == {"start": format_datetime(at(TTL + 10)()), "until": format_datetime(at(2 * TTL + 10)())}
    sync_devices(a, b)
    lease(a, "desk", at(1950)).acquire()
    assert [(s["device"], s["from"]) for s in file_of(a, "desk")["splits"]] == [
        ("laptop", format_datetime(at(TTL + 10)()))
    ]
