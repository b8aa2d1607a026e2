"""Calls to the local daemon never go through a configured web proxy: a real recording proxy
on 127.0.0.1 named in every proxy variable, a real daemon, a CLI subprocess and an MCP relay
that talk to it; the calls succeed and the proxy sees nothing."""

from __future__ import annotations

import asyncio
import json
import socketserver
import sys
import threading
import uuid
from pathlib import Path

import pytest
from conftest import ROOT
from daemon_util import Daemon, cli
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon")

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
STAGING = "STM/Staging runs Postgres 16.md"


class RecordingProxy(socketserver.ThreadingTCPServer):
    """Accepts any connection, keeps the first bytes it was sent, answers 502 like a proxy
    that cannot reach the target would."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        self.seen: list[bytes] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.settimeout(5)
        try:
            first = self.request.recv(65536)
        except OSError:
            first = b""
        server = self.server
        assert isinstance(server, RecordingProxy)
        with server.lock:
            server.seen.append(first or b"<connection>")
        try:
            self.request.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass


@pytest.fixture
def recording_proxy():
    server = RecordingProxy()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def proxied(env: dict, proxy_url: str) -> dict:
    """`env` with every proxy variable, in both cases, naming the recording proxy and no bypass list."""
    env = {k: v for k, v in env.items() if k.lower() != "no_proxy"}
    for name in PROXY_VARS:
        env[name] = env[name.lower()] = proxy_url
    return env


def test_the_recording_proxy_records(recording_proxy):
    """The detector works: a client that does honour the variables is caught."""
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": recording_proxy.url}))
    with pytest.raises(urllib.error.HTTPError):
        opener.open("http://127.0.0.1:9/api/status", timeout=10)
    assert recording_proxy.seen and recording_proxy.seen[0].startswith(b"GET http://127.0.0.1:9/")


def test_cli_and_relay_reach_the_daemon_directly_with_proxies_set(vault, tmp_path, recording_proxy):
    d = Daemon(vault, tmp_path / "home")
    d.env = proxied(d.env, recording_proxy.url)
    d.start()
    try:
        env = d.env
        # the CLI's data dir is unusable: an answer can only have come from the daemon
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("", encoding="utf-8")
        cli_env = {**env, "MNEMOVAULT_DATA_DIR": str(blocker / "data")}
        marker = f"proxy-free marker {uuid.uuid4().hex[:12]}"
        saved = cli("save", f"The {marker} stays on this machine.", "--vault", str(vault), "--json", env=cli_env)
        assert saved.returncode == 0, saved.stderr
        found = cli("search", marker.split()[-1], "--vault", str(vault), "--json", env=cli_env)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["results"], found.stdout
        touched = cli("touch", STAGING, "--vault", str(vault), "--json", env=cli_env)
        assert touched.returncode == 0, touched.stderr

        relay = StdioTransport(
            command=sys.executable,
            args=["-m", "bridge.cli", "mcp", "--vault", str(vault)],
            env=env,
            cwd=str(ROOT),
            keep_alive=False,
            log_file=tmp_path / "relay.err",
        )

        async def go():
            async with Client(relay, timeout=60) as c:
                result = await c.call_tool("search_memory", {"query": marker.split()[-1]})
                assert not result.is_error, result.content
                return await c.call_tool("status", {})

        status = asyncio.run(asyncio.wait_for(go(), 120))
        assert not status.is_error, status.content
    finally:
        d.close()
    assert recording_proxy.seen == [], f"the proxy received: {recording_proxy.seen[:3]!r}"
    assert "daemon answered" not in Path(tmp_path / "relay.err").read_text(encoding="utf-8", errors="replace")
