"""The edges of serving MCP: a folder that is not a vault, a vault folder deleted under its
daemon, a daemon with no client left, a request without the token, a missing resource.
Real daemons and relays in subprocesses; every wait is on a process exit, never a sleep."""

from __future__ import annotations

import asyncio
import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from conftest import ROOT
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, cli
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.slow


def wait_exit(pid: int, timeout: float) -> bool:
    """Wait for a process that is not our child to end: its pidfd becomes readable on exit."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def http_client(d: Daemon) -> Client:
    return Client(StreamableHttpTransport(f"{d.url}/mcp", headers=d.auth), timeout=60)


def test_relay_refuses_a_folder_that_is_not_a_vault(tmp_path):
    folder = tmp_path / "just a folder"
    folder.mkdir()
    env = child_env(tmp_path / "home")
    r = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "mcp", "--vault", str(folder)],
        env=env,
        cwd=str(ROOT),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "not a vault" in r.stderr and f"mnemovault init {folder}" in r.stderr, r.stderr
    assert list(folder.iterdir()) == []  # no .mnemovault/, no lease
    assert not (tmp_path / "home" / "config" / "bridges").exists()  # and no daemon
    # the in-process server refuses it the same way
    r = cli("mcp", "--in-process", "--vault", str(folder), env=env)
    assert r.returncode != 0 and "mnemovault init" in (r.stdout + r.stderr)
    assert list(folder.iterdir()) == []


def test_daemon_stops_when_its_vault_folder_is_deleted(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        assert d.proc is not None
        shutil.rmtree(vault)
        assert d.proc.wait(timeout=60) == 0, d.output()[-2000:]
        assert not vault.exists(), "the daemon re-created the deleted vault folder"
        assert "is gone: stopping" in d.log_text()
        assert not d.bridge.exists()
    finally:
        d.close()


def test_an_idle_daemon_stops_and_a_relay_session_keeps_it_alive(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", args=("--idle-exit", "2"), **QUIET_LIFECYCLE).start()
    try:
        assert d.proc is not None
        relay = StdioTransport(
            command=sys.executable,
            args=["-m", "bridge.cli", "mcp", "--vault", str(vault)],
            env=d.env,
            cwd=str(ROOT),
            keep_alive=False,
        )

        async def session() -> None:
            async with Client(relay, timeout=60) as c:
                await c.call_tool("status", {})
                # the relay holds the session's stream open: a client, however quiet
                await asyncio.to_thread(d.proc.wait, 6)

        with pytest.raises(subprocess.TimeoutExpired):
            asyncio.run(session())
        assert d.proc.wait(timeout=60) == 0, d.output()[-2000:]  # the session ended: idle from then on
        assert "no client for 2s: stopping" in d.log_text()
        assert not d.bridge.exists()
    finally:
        d.close()


def test_a_relay_started_daemon_stops_after_the_idle_time(vault, tmp_path):
    home = tmp_path / "home"
    env = child_env(home, MNEMOVAULT_IDLE_EXIT_SECONDS="1", **QUIET_LIFECYCLE)
    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "bridge.cli", "mcp", "--vault", str(vault)],
        env=env,
        cwd=str(ROOT),
        keep_alive=False,
    )
    bridge = Daemon(vault, home).bridge  # only for its path

    async def go() -> tuple[int, list[bytes]]:
        async with Client(transport, timeout=120) as c:
            await c.call_tool("status", {})
            pid = json.loads(bridge.read_text(encoding="utf-8"))["pid"]
            return pid, Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")

    pid, cmdline = asyncio.run(go())
    assert cmdline[cmdline.index(b"--idle-exit") + 1] == b"1.0"
    assert wait_exit(pid, 60), "the daemon the relay started kept running with no client"
    assert not bridge.exists()


def test_401_names_the_scheme_and_a_missing_resource_is_not_found(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        r = httpx.post(f"{d.url}/mcp", json={}, timeout=30)
        assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
        assert httpx.get(f"{d.url}/api/status", timeout=30).headers["www-authenticate"].startswith("Bearer")

        async def go():
            async with http_client(d) as c:
                with pytest.raises(MCPError) as missing:
                    await c.read_resource("memory://no-such-id")
                return missing.value

        err = asyncio.run(go())
        assert err.error.code == -32002 and "not_found" in err.error.message
    finally:
        d.close()


def test_daemon_info_prints_the_mcp_url(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        r = cli("daemon", "--info", "--vault", str(vault), env=d.env)
        assert r.returncode == 0, r.stderr
        info = json.loads(r.stdout)
        assert (
            info["mcp_url"] == f"{d.url}/mcp"
            and info["token"] == d.info["token"]
            and info["bridge_file"] == str(d.bridge)
        )
    finally:
        d.close()
    r = cli("daemon", "--info", "--vault", str(vault), env=d.env)
    assert r.returncode != 0 and "no mnemovault daemon" in (r.stdout + r.stderr)


def test_an_in_process_server_refuses_a_vault_a_daemon_serves(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        before = {p: p.read_bytes() for p in vault.rglob("*.md")}
        out = subprocess.run(
            [sys.executable, "-m", "bridge.cli", "mcp", "--in-process", "--vault", str(vault)],
            env=d.env,
            cwd=str(ROOT),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert out.returncode != 0
        assert "already serves this vault" in out.stderr and "without --in-process" in out.stderr, out.stderr
        assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
        assert d.alive() and d.get("/api/status").status_code == 200
    finally:
        d.close()
