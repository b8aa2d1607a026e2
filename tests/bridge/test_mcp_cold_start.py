"""The clients people use, in their default modes, list the tools at once on a cold start.

The `mcp` SDK's and fastmcp's clients first send the newer protocol's `server/discover`; the
relay answers it itself (the handshake's versions), then `initialize` and `tools/list` from its
manifest, all before the daemon it started accepts a connection. The first call then reaches
that daemon through the session the relay opens for it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from daemon_util import Daemon, child_env, stop_started_daemon, wait_for
from fastmcp import Client as FastMCPClient
from fastmcp.client.transports import StdioTransport
from mcp.client.client import Client as SDKClient
from mcp.client.stdio import StdioServerParameters

from bridge.daemon_start import listening, live_bridge
from bridge.mcp_proxy import Relay

pytestmark = pytest.mark.slow


def _daemon_accepting(vault: Path) -> bool:
    """Does a daemon serve `vault` and accept connections (MNEMOVAULT_CONFIG_DIR: the children's)?"""
    info = live_bridge(vault)
    return info is not None and listening(info, timeout=1.0)


def _daemon_processes(vault: Path) -> list[int]:
    """Live `daemon --vault VAULT` processes (zombies are not)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if b"daemon" in argv and str(vault).encode() in argv and b"--stop" not in argv and state != "Z":
            found.append(int(entry.name))
    return found


def _argv(vault: Path) -> list[str]:
    return ["-m", "bridge.cli", "mcp", "--vault", str(vault)]


async def _sdk_session(env: dict, vault: Path) -> tuple[set[str], bool, dict]:
    params = StdioServerParameters(command=sys.executable, args=_argv(vault), env=env, cwd=str(ROOT))
    async with SDKClient(params) as c:  # mode="auto": server/discover first
        names = {t.name for t in (await c.list_tools()).tools}
        accepting = _daemon_accepting(vault)
        result = await c.call_tool("status", {})
        return names, accepting, json.loads(result.content[0].text)


async def _fastmcp_session(env: dict, vault: Path) -> tuple[set[str], bool, dict]:
    transport = StdioTransport(command=sys.executable, args=_argv(vault), env=env, cwd=str(ROOT), keep_alive=False)
    async with FastMCPClient(transport, timeout=120) as c:  # its default mode: server/discover first
        names = {t.name for t in await c.list_tools()}
        accepting = _daemon_accepting(vault)
        result = await c.call_tool("status", {})
        return names, accepting, result.structured_content


@pytest.mark.parametrize("session", [_sdk_session, _fastmcp_session], ids=["mcp-sdk", "fastmcp"])
def test_default_clients_list_tools_before_the_daemon_accepts(session, vault, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(home / "config"))
    env = child_env(home)
    assert not _daemon_accepting(vault)  # cold: no daemon serves this vault
    try:
        names, accepting, status = asyncio.run(asyncio.wait_for(session(env, vault), 180))
    finally:
        stop_started_daemon(home)
    assert {"save_memory", "search_memory", "status", "cluster_memories"} <= names
    assert not accepting, "tools/list was answered before the daemon accepted a connection"
    assert status["counts"]["stm"] == 31  # the first call reached the daemon the relay started


def test_discover_is_answered_at_once_with_the_handshake_versions(vault, tmp_path, monkeypatch):
    import io

    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(tmp_path / "home" / "config"))
    out = io.BytesIO()
    relay = Relay(vault, out, start_daemon=False)  # nothing to forward to: the relay answers alone
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    relay.dispatch({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}})
    relay.dispatch({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    answers = {m["id"]: m for m in map(json.loads, out.getvalue().splitlines())}
    error = answers[1]["error"]
    assert error["code"] == -32022 and error["data"]["requested"] == "2026-07-28"
    assert error["data"]["supported"] == sorted(v for v in relay.manifest["initialize"] if v != "0000-00-00")
    assert answers[2]["result"] == {}


def test_after_a_local_discover_the_daemon_accepts_the_session(vault, tmp_path, monkeypatch):
    """A running daemon: the probe is still answered here, and the handshake that follows reaches it."""
    d = Daemon(vault, tmp_path / "home").start()
    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(d.home / "config"))
    try:
        names, accepting, status = asyncio.run(asyncio.wait_for(_sdk_session(d.env, vault), 120))
    finally:
        d.close()
    assert "save_memory" in names and accepting and status["counts"]["stm"] == 31


def test_daemon_stop_ends_a_daemon_a_relay_started(vault, tmp_path, monkeypatch):
    from daemon_util import cli

    home = tmp_path / "home"
    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(home / "config"))
    env = child_env(home)
    try:
        asyncio.run(asyncio.wait_for(_fastmcp_session(env, vault), 180))  # the relay starts the daemon
        info = live_bridge(vault)
        assert info is not None, "the relay started a daemon that outlives the session"
        pid = info["pid"]
        running = cli("daemon", "--status", "--vault", str(vault), env=env)
        assert running.returncode == 0 and f"pid {pid}" in running.stdout, running.stderr
        stopped = cli("daemon", "--stop", "--vault", str(vault), env=env)
        assert stopped.returncode == 0 and f"pid {pid}" in stopped.stdout, stopped.stderr
        assert (
            not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
        )
        assert live_bridge(vault) is None
        gone = cli("daemon", "--status", "--vault", str(vault), env=env)
        assert gone.returncode == 4 and "no mnemovault daemon" in gone.stderr
        again = cli("daemon", "--stop", "--vault", str(vault), env=env)
        assert again.returncode == 0 and "nothing to stop" in again.stdout

        # at once after a session: the daemon the relay started may still be starting
        asyncio.run(asyncio.wait_for(_sdk_session(env, vault), 180))
        early = cli("daemon", "--stop", "--vault", str(vault), env=env)
        assert early.returncode == 0 and "stopped" in early.stdout, early.stdout + early.stderr
        assert not _daemon_processes(vault), "a daemon of this vault is left running"
    finally:
        stop_started_daemon(home)


def test_a_client_that_leaves_at_once_still_leaves_a_daemon_starting(vault, tmp_path, monkeypatch):
    """stdin closed before the relay's connect thread ran: the relay waits for the daemon's
    process to exist before it exits, so the next session finds a daemon (the wheel smoke
    closes stdin right after tools/list, answered from the manifest)."""
    import subprocess

    home = tmp_path / "home"
    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(home / "config"))
    env = child_env(home)
    try:
        done = subprocess.run(
            [sys.executable, *_argv(vault)], input=b"", env=env, cwd=ROOT, capture_output=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        wait_for(lambda: _daemon_accepting(vault), timeout=180)
        assert len(_daemon_processes(vault)) == 1
    finally:
        stop_started_daemon(home)


async def _first_save_then_search(env: dict, vault: Path, text: str) -> tuple[bool, dict, dict]:
    transport = StdioTransport(command=sys.executable, args=_argv(vault), env=env, cwd=str(ROOT), keep_alive=False)
    async with FastMCPClient(transport, timeout=120) as c:
        accepting = _daemon_accepting(vault)
        saved = await c.call_tool("save_memory", {"text": text})  # the session's first call
        found = await c.call_tool("search_memory", {"query": "quokka telescope"})
        return accepting, saved.structured_content, found.structured_content


def test_the_first_save_through_a_cold_relay_is_written_indexed_and_found(vault, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(home / "config"))
    env = child_env(home)
    text = "The quokka telescope arrives on Thursday"
    try:
        accepting, saved, found = asyncio.run(asyncio.wait_for(_first_save_then_search(env, vault, text), 180))
    finally:
        stop_started_daemon(home)
    assert not accepting  # the save was the first thing the relay forwarded to a daemon it started
    assert saved["saved"]
    note = vault / saved["note"]["path"]
    assert text in note.read_text(encoding="utf-8")  # written by the daemon, in the vault
    assert saved["note"]["id"] in [hit["id"] for hit in found["results"]]  # indexed: the next call finds it
