"""One daemon per vault on a machine, whatever its config folder: the lock lives in the vault
and names the running daemon; clients under another config folder find that daemon.
Real daemons in subprocesses, real OS locks, real CLI subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, cli, index_path_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon and signals")

NOTE = "STM/Staging runs Postgres 16.md"


def _vault_notes(vault: Path) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in vault.rglob("*.md")}


def _lease_held_elsewhere(vault: Path) -> None:
    """No background writes by the running daemon (its first sweep 10 s after start would
    change scores while the refused one starts): only the refused daemon could change notes."""
    from datetime import timedelta

    from vault_sync.dates import format_datetime, utc_now

    now = utc_now()
    lease = {"device": "another-device", "heartbeat": format_datetime(now)}
    lease["expires"] = format_datetime(now + timedelta(seconds=600))  # within a term: believed
    (vault / ".mnemovault").mkdir(exist_ok=True)
    (vault / ".mnemovault" / "lease.json").write_text(json.dumps(lease), encoding="utf-8")


def test_a_daemon_under_another_config_folder_is_refused_naming_the_running_one(vault, tmp_path):
    _lease_held_elsewhere(vault)
    a = Daemon(vault, tmp_path / "home-a", **QUIET_LIFECYCLE).start()
    try:
        before = _vault_notes(vault)
        second = cli("daemon", "--vault", str(vault), env=child_env(tmp_path / "home-b", **QUIET_LIFECYCLE), timeout=90)
        assert second.returncode != 0
        msg = second.stderr
        assert "already serves this vault" in msg and f"pid {a.proc.pid}" in msg, msg
        assert f"port {a.info['port']}" in msg and str(tmp_path / "home-a" / "config") in msg, msg
        assert a.alive() and a.status()
        assert _vault_notes(vault) == before  # the refused daemon wrote nothing
        assert not index_path_of(tmp_path / "home-b", vault).exists()  # nor indexed anything
        # the lock file syncs to every device: empty; who holds it is in this user's folder outside the vault
        assert next((vault / ".mnemovault").glob("daemon-*.lock")).read_bytes() == b""
        from bridge.vault_lock import holder

        assert holder(vault)["pid"] == a.proc.pid and holder(vault)["port"] == a.info["port"]
    finally:
        a.close()


def test_a_client_under_another_config_folder_uses_the_running_daemon(vault, tmp_path):
    a = Daemon(vault, tmp_path / "home-a", MNEMOVAULT_QUIET_SECONDS="0", **QUIET_LIFECYCLE).start()
    try:
        env_c = child_env(tmp_path / "home-c")
        out = cli("touch", NOTE, "--vault", str(vault), "--json", env=env_c)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["note"]["use_count"] == 2
        # answered by daemon A: the client under home-c never opened an index of its own
        assert not index_path_of(tmp_path / "home-c", vault).exists()
        assert "use_count: 2" in (vault / NOTE).read_text(encoding="utf-8")
    finally:
        a.close()


def test_the_lock_is_free_again_after_a_stop_and_after_kill_9(vault, tmp_path):
    a = Daemon(vault, tmp_path / "home-a", **QUIET_LIFECYCLE).start()
    try:
        assert a.stop() == 0
        b = Daemon(vault, tmp_path / "home-b", **QUIET_LIFECYCLE).start()  # a clean stop frees the vault
        try:
            b.kill()  # no cleanup at all: the OS drops the lock with the process
            c = Daemon(vault, tmp_path / "home-c", **QUIET_LIFECYCLE).start()
            c.close()
        finally:
            b.close()
    finally:
        a.close()


def test_a_forged_lock_file_never_leads_a_client_to_another_bridge(vault, tmp_path):
    """The lock file is in the vault, which a sync peer can write: a client follows it only to
    a bridge file of its own user naming this vault and the lock holder's pid."""
    from bridge.vault_lock import VaultLock, bridge_via_lock

    fake = tmp_path / "fake-bridge.json"
    fake.write_text(json.dumps({"port": 1, "token": "t" * 40, "pid": 1, "vault": str(tmp_path / "elsewhere")}))
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        lock = VaultLock(vault)
        lock.acquire({"pid": holder.pid, "bridge": str(fake)})  # held here, naming a bridge of another vault
        try:
            assert bridge_via_lock(vault) is None
            fake.write_text(json.dumps({"port": 1, "token": "t" * 40, "pid": holder.pid, "vault": str(vault)}))
            assert bridge_via_lock(vault)["port"] == 1  # the same file naming this vault and the pid: followed
        finally:
            lock.release()
        assert bridge_via_lock(vault) is None  # nobody holds the lock: the file is not believed
    finally:
        holder.kill()
        holder.wait()


def test_a_full_disk_leaves_no_lease_temp_file(tmp_path):
    """The lifecycle renews the lease first; on a full disk that write fails and must not
    leave a temp file behind."""
    import errno
    import os

    from vault_sync.lease import Lease

    if os.geteuid() != 0:
        pytest.skip("filling a small tmpfs needs root (mount)")
    vault = tmp_path / "small"
    vault.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(vault)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        (vault / ".mnemovault").mkdir()
        fd = os.open(vault / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            with pytest.raises(OSError) as full:
                while True:
                    os.write(fd, b"\0" * 4096)
            assert full.value.errno == errno.ENOSPC
        finally:
            os.close(fd)
        with pytest.raises(OSError) as err:
            Lease(vault, "laptop-1", 60).acquire()
        assert err.value.errno == errno.ENOSPC
        assert [p for p in (vault / ".mnemovault").rglob("*") if not p.is_dir()] == []  # no temp file
    finally:
        subprocess.run(["umount", str(vault)], capture_output=True)
