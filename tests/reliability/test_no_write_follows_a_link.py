"""No write follows a link, anywhere (issue 38): a symbolic or hard link a sync peer plants
where the engine or the daemon writes (the daemon's lock, the device file and its temp file, the
journal's quarantine, a note's temp file, the memory folders) is refused or never opened,
and the file it points to outside the vault keeps its bytes and its mtime. The lock file,
which syncs to every device, names no home path, pid or port; a lease expiring beyond any
term is stale and listed in `status`'s problems.

Each test fails on the code before issue 38: there, these writes followed the link."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import FIXED_NOW, make_service
from daemon_util import child_env, cli

from bridge.vault_lock import VaultLock, holder, lock_path
from vault_sync import writer
from vault_sync.dates import format_datetime
from vault_sync.errors import MnemovaultError, UnsafePath
from vault_sync.lease import Lease

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")

NOTE = "STM/Staging runs Postgres 16.md"
SECRET = b"export API_TOKEN=do-not-touch\n"


@pytest.fixture
def outside(tmp_path) -> Path:
    """A person's file outside the vault, with an old mtime any write would change."""
    path = tmp_path / "outside" / "bashrc"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    return path


def unchanged(path: Path) -> bool:
    st = os.stat(path)
    return path.read_bytes() == SECRET and st.st_mtime_ns == 1_600_000_000_000_000_000


def plant(link: Path, target: Path, hard: bool = False) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if hard:
        os.link(target, link)
    else:
        link.symlink_to(target)


# -- the daemon's lock --


@pytest.mark.parametrize("hard", [False, True], ids=["symlink", "hard-link"])
def test_a_link_at_the_daemon_lock_is_refused_and_the_outside_file_unchanged(vault, outside, hard):
    plant(lock_path(vault), outside, hard)
    lock = VaultLock(vault)
    with pytest.raises(UnsafePath, match=r"daemon-.*\.lock is a (symbolic|hard) link"):
        lock.acquire({"pid": os.getpid(), "config": "/home/someone/.config/mnemovault"})
    lock.release()
    assert unchanged(outside)


def test_the_daemon_refuses_a_linked_lock_with_one_clear_line(vault, outside, tmp_path):
    plant(lock_path(vault), outside)
    out = cli("daemon", "--vault", str(vault), env=child_env(tmp_path / "home"), timeout=60)
    assert out.returncode != 0
    assert "is a symbolic link" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert unchanged(outside)


def test_the_lock_file_names_no_home_path_pid_or_port(vault, tmp_path):
    """The lock syncs to every device: who holds it stays on this machine, outside the vault."""
    home = str(tmp_path / "home-a" / "config")
    lock = VaultLock(vault)
    lock.acquire({"pid": os.getpid(), "config": home, "bridge": f"{home}/bridges/x.json"})
    try:
        lock.update({"port": 45678})
        data = lock_path(vault).read_bytes()
        assert b"home-a" not in data and str(os.getpid()).encode() not in data and b"45678" not in data
        assert data == b""
        seen = holder(vault)  # a second config folder still finds the daemon
        assert seen is not None and seen["pid"] == os.getpid() and seen["port"] == 45678
    finally:
        lock.release()
    assert holder(vault) is None


# -- the lease --


def test_a_link_at_the_lease_temp_name_is_never_written_through(vault, outside):
    """`.lease.<device-id>.tmp` was a name any peer could read from lease.json; the device file's
    temp name is random."""
    plant(vault / ".mnemovault" / ".lease.laptop-1.tmp", outside)
    plant(vault / ".mnemovault" / "devices" / ".laptop-1.json.tmp", outside)
    state = Lease(vault, "laptop-1", 60, clock=lambda: FIXED_NOW).acquire()
    assert state.held
    assert unchanged(outside)
    assert not (vault / ".mnemovault" / "devices" / "laptop-1.json").is_symlink()


@pytest.mark.parametrize("hard", [False, True], ids=["symlink", "hard-link"])
def test_a_link_at_the_device_file_is_refused(vault, outside, hard):
    plant(vault / ".mnemovault" / "devices" / "laptop-1.json", outside, hard)
    with pytest.raises(UnsafePath, match=r"\.mnemovault/devices/laptop-1\.json is a (symbolic|hard) link"):
        Lease(vault, "laptop-1", 60, clock=lambda: FIXED_NOW).acquire()
    assert unchanged(outside)


@pytest.mark.parametrize("hard", [False, True], ids=["symlink", "hard-link"])
def test_a_link_at_an_old_lease_file_is_never_followed_and_its_name_removed(vault, outside, hard):
    """An earlier version's lease.json is only read, never through a link; the holder removes
    the name (never what it points to)."""
    plant(vault / ".mnemovault" / "lease.json", outside, hard)
    state = Lease(vault, "laptop-1", 60, clock=lambda: FIXED_NOW).acquire()
    assert state.held
    assert not os.path.lexists(vault / ".mnemovault" / "lease.json")
    assert unchanged(outside)


def test_a_lease_expiring_in_year_9999_is_stale_and_in_problems(vault):
    forged = {"device": "far-future", "heartbeat": format_datetime(FIXED_NOW), "expires": "9999-12-31T00:00:00Z"}
    (vault / ".mnemovault").mkdir(exist_ok=True)
    (vault / ".mnemovault" / "lease.json").write_text(json.dumps(forged), encoding="utf-8")
    svc = make_service(vault)
    try:
        problems = [p for p in svc.status()["problems"] if p["path"] == ".mnemovault/lease.json"]
        assert len(problems) == 1 and "9999" in problems[0]["cause"] and "stale" in problems[0]["cause"]
    finally:
        svc.close()
    state = Lease(vault, "laptop-1", 900, clock=lambda: FIXED_NOW).acquire()
    assert state.held and state.holder == "laptop-1"  # taken over: background writes run again
    assert "9999" in (state.problem or "")


def test_a_lease_within_its_term_is_still_respected(vault):
    ahead = format_datetime(FIXED_NOW + timedelta(seconds=600))
    (vault / ".mnemovault").mkdir(exist_ok=True)
    (vault / ".mnemovault" / "lease.json").write_text(
        json.dumps({"device": "desk", "heartbeat": format_datetime(FIXED_NOW), "expires": ahead}), encoding="utf-8"
    )
    state = Lease(vault, "laptop-1", 900, clock=lambda: FIXED_NOW).acquire()
    assert not state.held and state.holder == "desk" and state.problem is None


# -- the move journal and its quarantine --


def _forged_entry(vault: Path, name: str = "evil") -> Path:
    """An entry naming a path outside the vault: recovery refuses it and sets it aside."""
    folder = vault / ".mnemovault" / "journal"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"src": NOTE, "dst": "../escaped.md", "reason": "archive"}), encoding="utf-8")
    return path


def test_a_link_at_the_quarantine_temp_name_is_never_written_through(vault, outside):
    """The quarantine's temp file was named after the entry, which a peer chooses."""
    entry = _forged_entry(vault)
    plant(vault / ".mnemovault" / "journal" / "quarantine" / "evil.tmp", outside)
    svc = make_service(vault, sync=False)
    try:
        lines = svc.recover()
    finally:
        svc.close()
    assert any("refused the journal entry" in line for line in lines), lines
    assert unchanged(outside)
    assert not entry.exists()
    aside = vault / ".mnemovault" / "journal" / "quarantine" / "evil.json"
    assert not aside.is_symlink() and json.loads(aside.read_text(encoding="utf-8"))["quarantined"]


def test_a_linked_journal_folder_is_not_touched(vault, outside):
    """A journal folder linked to a folder elsewhere: recovery deleted its unreadable *.json."""
    victim = outside.parent / "settings.json"
    victim.write_bytes(SECRET)
    (vault / ".mnemovault").mkdir(exist_ok=True)
    (vault / ".mnemovault" / "journal").symlink_to(outside.parent, target_is_directory=True)
    svc = make_service(vault, sync=False)
    try:
        lines = svc.recover()
    finally:
        svc.close()
    assert victim.read_bytes() == SECRET and unchanged(outside)
    assert lines and "symbolic link" in lines[0]


# -- notes and their folders --


def test_a_hard_link_at_a_notes_temp_path_is_refused(vault, outside, monkeypatch):
    """A temp name taken (a peer guessed it, or planted a hard link there) is never opened."""
    before = (vault / NOTE).read_bytes()
    planted = vault / "STM" / ".planted.mvtmp-0000"
    plant(planted, outside, hard=True)
    svc = make_service(vault)
    try:
        monkeypatch.setattr(writer, "temp_name", lambda target: planted)
        with pytest.raises(MnemovaultError, match="temp name") as err:
            svc.touch(NOTE)
        assert isinstance(err.value, UnsafePath)
    finally:
        svc.close()
    assert unchanged(outside) and os.stat(outside).st_nlink == 2
    assert (vault / NOTE).read_bytes() == before


def test_a_symlinked_stm_folder_is_refused_at_start(vault, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for p in (vault / "STM").iterdir():
        p.rename(elsewhere / p.name)
    (vault / "STM").rmdir()
    (vault / "STM").symlink_to(elsewhere, target_is_directory=True)
    before = sorted(p.name for p in elsewhere.iterdir())
    with pytest.raises(UnsafePath, match=r"STM/ is a symbolic link .*replace the link with a folder"):
        make_service(vault)
    out = cli("save", "The staging database moved to the new host on Monday", "--vault", str(vault))
    assert out.returncode == 7, (out.stdout, out.stderr)
    assert "STM/ is a symbolic link" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert "saved" not in out.stdout
    assert sorted(p.name for p in elsewhere.iterdir()) == before  # nothing written there


def test_stm_replaced_by_a_link_while_running_is_refused(vault, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    svc = make_service(vault)
    try:
        (vault / "STM").rename(tmp_path / "STM-moved")
        (vault / "STM").symlink_to(elsewhere, target_is_directory=True)
        with pytest.raises(UnsafePath, match="STM/ is a symbolic link"):
            svc.save("The staging database moved to the new host on Monday")
        with pytest.raises(MnemovaultError, match="symbolic link|symlink"):  # resolved outside, or a link
            svc.touch(NOTE)
    finally:
        svc.close()
    assert list(elsewhere.iterdir()) == []


def test_the_sweep_never_writes_through_a_note_replaced_by_a_link(vault, outside):
    svc = make_service(vault, now=FIXED_NOW + timedelta(days=20))  # every score is due a rewrite
    try:
        target = vault / NOTE
        outside.write_bytes(target.read_bytes())
        os.utime(outside, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
        saved = outside.read_bytes()
        target.unlink()
        target.symlink_to(outside)
        report = svc.sweep()
    finally:
        svc.close()
    assert outside.read_bytes() == saved and os.stat(outside).st_mtime_ns == 1_600_000_000_000_000_000
    assert (vault / NOTE).is_symlink()
    assert report["written"] > 0 and any(e["path"] == NOTE for e in report["errors"]), report
