"""A session's first save while the daemon it started is still starting: answered by the
daemon's early save server (bridge/early_server.py) as the MCP tool would answer it, written,
indexed and filed under the session's project; anything the early server is not sure of is
left to the MCP app."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from daemon_util import child_env, stop_started_daemon, wait_for
from fastmcp import Client as FastMCPClient
from fastmcp.client.transports import StdioTransport

from bridge.context import open_service
from bridge.early_server import PATH, EarlyServer
from bridge.paths import early_file
from vault_sync.note import parse_note

pytestmark = pytest.mark.slow

EARLY_LINE = "a save answered before the MCP app served"
NPM = "np" + "m_" + "Q7rT2vX9kL4mN8pB3sD6fG1hJ5wZ0yC2eR4t"  # an npm token's shape (not a real one)
SECRET = f"the registry token is {NPM}"


def _project(vault: Path, saved: dict) -> str | None:
    path = saved["note"]["path"]
    return parse_note(path, (vault / path).read_bytes()).fields.project


def _early_answers(home: Path) -> int:
    try:
        return (home / "logs" / "mnemovault.log").read_text(encoding="utf-8").count(EARLY_LINE)
    except OSError:
        return 0


def _transport(env: dict, vault: Path, *extra: str) -> StdioTransport:
    args = ["-m", "bridge.cli", "mcp", "--vault", str(vault), *extra]
    return StdioTransport(command=sys.executable, args=args, env=env, cwd=str(ROOT), keep_alive=False)


def _run(home: Path, vault: Path, session, *extra: str, roots=None):
    env = child_env(home)

    async def go():
        client = FastMCPClient(_transport(env, vault, *extra), timeout=120, roots=roots)
        async with client as c:
            return await session(c)

    try:
        return asyncio.run(asyncio.wait_for(go(), 240))
    finally:
        stop_started_daemon(home)


def test_a_first_save_is_answered_early_as_the_tool_answers_and_then_found(vault, tmp_path):
    home = tmp_path / "home"
    before = {p.name for p in (vault / "STM").iterdir()}

    async def session(c):
        first = await c.call_tool("save_memory", {"text": "The wombat radio mast is repainted in May"})
        bridges = home / "config" / "bridges"
        # the MCP app serves once the bridge file names the daemon and the early file is gone
        await asyncio.to_thread(wait_for, lambda: any(bridges.glob("*.json")) and not any(bridges.glob("*.early")), 120)
        later = await c.call_tool("save_memory", {"text": "The pelican ferry runs twice a day"})
        again = await c.call_tool("save_memory", {"text": "The wombat radio mast is repainted in May"})
        found = await c.call_tool("search_memory", {"query": "wombat radio mast"})
        return first, later, again, found

    first, later, again, found = _run(home, vault, session)
    assert _early_answers(home) == 1  # the first save only: the others went to the MCP app
    # the answer the MCP app gives: the same keys, the text the same JSON as the structured part
    # (fastmcp's client has already checked it against the tool's output schema)
    assert set(first.structured_content) == set(later.structured_content)
    for result in (first, later):
        assert json.loads(result.content[0].text) == result.structured_content
    saved = first.structured_content
    assert saved["saved"] is True
    note = vault / saved["note"]["path"]
    assert note.name not in before and "wombat radio mast" in note.read_text(encoding="utf-8")
    assert again.structured_content.get("reinforced") is True  # the early save was indexed
    assert again.structured_content["note"]["id"] == saved["note"]["id"]
    assert saved["note"]["id"] in [hit["id"] for hit in found.structured_content["results"]]


def test_the_early_save_files_the_relays_project_and_roots_wait_for_the_mcp_app(vault, tmp_path):
    async def session(c):
        return await c.call_tool("save_memory", {"text": "Atlas deploys go out on Tuesdays"})

    atlas = _run(tmp_path / "a", vault, session, "--project", "atlas")
    assert _early_answers(tmp_path / "a") == 1
    assert _project(vault, atlas.structured_content) == "atlas"

    async def roots_session(c):
        return await c.call_tool("save_memory", {"text": "Borealis builds run on the old cluster"})

    borealis = _run(tmp_path / "b", vault, roots_session, roots=[f"file://{tmp_path / 'work' / 'borealis'}"])
    assert _early_answers(tmp_path / "b") == 0  # only the MCP app asks a client for its roots
    assert _project(vault, borealis.structured_content) == "borealis"


def test_a_first_call_the_early_server_is_not_sure_of_gets_the_tools_own_error(vault, tmp_path):
    before = sorted(p.name for p in (vault / "STM").iterdir())

    async def session(c):
        first = await c.call_tool("save_memory", {"text": "Bad strength", "strength": 7.5}, raise_on_error=False)
        second = await c.call_tool("save_memory", {"text": "Bad strength", "strength": 7.5}, raise_on_error=False)
        return first, second

    first, second = _run(tmp_path / "home", vault, session)
    assert first.is_error and second.is_error
    assert first.content[0].text == second.content[0].text  # the MCP app's words, both times
    assert "strength" in first.content[0].text
    assert _early_answers(tmp_path / "home") == 0
    assert sorted(p.name for p in (vault / "STM").iterdir()) == before


def _post(port: int, token: str, body: object, path: str = PATH) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, json.dumps(body), {"Authorization": f"Bearer {token}"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_the_early_server_takes_only_what_it_answers_as_the_tool_would(vault, tmp_path):
    token = "t" * 40
    with open_service(vault) as svc:
        early = EarlyServer(svc, token, vault)
        early.start()
        try:
            info = json.loads(early_file(vault).read_text(encoding="utf-8"))
            assert info["pid"] == os.getpid()
            port = info["port"]
            assert _post(port, "wrong" * 8, {"arguments": {"text": "x"}})[0] == 401
            assert _post(port, token, {"arguments": {"text": "x"}}, "/api/rpc")[0] == 404
            # arguments and values the MCP tool words itself: left to it
            for args in ({"text": "x", "conversation": "c1"}, {"text": "x", "strength": 9}, {"text": 5}, []):
                assert _post(port, token, {"arguments": args})[0] == 409
            assert _post(port, token, {"arguments": {"text": "x", "shared": "yes"}})[0] == 409
            status, refused = _post(port, token, {"arguments": {"text": SECRET}})
            assert status == 200 and refused["isError"] is True
            assert refused["content"][0]["text"].startswith("refused")
            assert NPM[4:] not in json.dumps(refused)
            status, shared = _post(
                port, token, {"arguments": {"text": "Kettles descale monthly", "shared": True}, "project": "atlas"}
            )
            assert status == 200 and shared["isError"] is False
            assert shared["structuredContent"]["saved"] is True
            assert _project(vault, shared["structuredContent"]) is None  # shared=true wins over the session's project
        finally:
            early.close()
        assert not early_file(vault).exists()


def _raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_early_server_answers_a_malformed_request_and_goes_on(vault, tmp_path):
    token = "t" * 40
    with open_service(vault) as svc:
        early = EarlyServer(svc, token, vault)
        early.start()
        try:
            port = early.httpd.server_address[1]
            assert _raw(port, b"nonsense\r\n\r\n").startswith(b"HTTP/1.1 400 ")
            assert _raw(port, b"POST / HTTP/1.1\r\n" + b"X-A: b\r\n" * 100 + b"\r\n").startswith(b"HTTP/1.1 400 ")
            assert _raw(port, b"POST / HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n").startswith(b"HTTP/1.1 400 ")
            assert _raw(port, b"GET /early/save_memory HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 405 ")
            body = json.dumps({"arguments": {"text": "Larches turn gold in October"}}).encode()
            head = f"POST {PATH} HTTP/1.1\r\nauthorization: Bearer {token}\r\ncontent-length: {len(body)}\r\n\r\n"
            answer = _raw(port, head.encode() + body)
            status, _, rest = answer.partition(b"\r\n")
            assert status == b"HTTP/1.1 200 OK"
            assert json.loads(rest.partition(b"\r\n\r\n")[2])["structuredContent"]["saved"] is True
        finally:
            early.close()


def test_a_daemon_asked_to_stop_while_it_starts_stops_cleanly(vault, tmp_path):
    home = tmp_path / "home"
    env = child_env(home)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bridge.cli", "daemon", "--vault", str(vault), "--idle-exit", "0"],
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        config = home / "config" / "bridges"
        wait_for(lambda: proc.poll() is not None or any(config.glob("*.early")), timeout=120)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGTERM)  # before uvicorn serves: its handlers are not in place yet
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not list(config.glob("*"))  # neither the early file nor a bridge file left behind
    assert "stopped cleanly" in (home / "logs" / "mnemovault.log").read_text(encoding="utf-8")


def test_the_relays_daemon_command_fails_as_the_cli_does(tmp_path):
    missing = tmp_path / "nowhere"
    env = child_env(tmp_path / "home")
    light = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "daemon", "--vault", str(missing), "--idle-exit", "5"],
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    full = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "daemon", "--vault", str(missing)],
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert light.returncode == full.returncode != 0
    assert light.stderr.strip() == full.stderr.strip() and light.stderr.startswith("error: ")


def test_a_save_after_the_daemon_died_mid_call_starts_it_again_without_waiting_for_an_early_server(vault, tmp_path):
    home = tmp_path / "home"
    bridges = home / "config" / "bridges"

    def daemon_pid() -> int | None:
        for path in bridges.glob("*.json"):
            try:
                return int(json.loads(path.read_text(encoding="utf-8"))["pid"])
            except (OSError, ValueError, KeyError):
                return None
        return None

    async def session(c):
        await c.call_tool("status", {})  # through the MCP app of the daemon the relay started
        first = await asyncio.to_thread(wait_for, daemon_pid, 60)
        # a call in flight when the daemon dies: the relay drops the session and has none
        os.kill(first, signal.SIGSTOP)
        call = asyncio.create_task(c.call_tool("status", {}))
        await asyncio.sleep(1.0)
        os.kill(first, signal.SIGKILL)
        with pytest.raises(Exception, match="stopped during this call"):
            await asyncio.wait_for(call, 30)
        saved = await asyncio.wait_for(c.call_tool("save_memory", {"text": "The heron bridge reopens in June"}), 90)
        return first, saved, daemon_pid()

    first, saved, second = _run(home, vault, session)
    assert saved.structured_content["saved"] is True
    assert _early_answers(home) == 0  # the daemon started again through the normal path
    assert second not in (None, first)


def test_a_relay_starts_the_daemon_before_its_own_imports_and_waits_for_that_one(vault, tmp_path, monkeypatch):
    from bridge import daemon_start

    home = tmp_path / "home"
    for key, value in child_env(home).items():
        monkeypatch.setenv(key, value)
    folder = vault.resolve()
    daemon_start.prestart(folder)
    child = daemon_start._started[folder]
    try:
        info = daemon_start.ensure_daemon(folder, 120)
        assert info["pid"] == child.pid and folder not in daemon_start._started  # no second daemon
        daemon_start.prestart(folder)  # one serves: nothing started
        assert folder not in daemon_start._started
    finally:
        daemon_start._started.pop(folder, None)
        child.terminate()  # our own child here: reaped, not left a zombie that still looks alive
        child.wait(60)
