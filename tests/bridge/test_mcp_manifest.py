"""The relay answers initialize and tools/list from bridge/mcp_manifest.json while no daemon
session exists, and opens the daemon's session with the same initialize once it can. The file
must be what the server answers: regenerate it with `python -m bridge.mcp_manifest`."""

from __future__ import annotations

import io
import json

import pytest
from daemon_util import Daemon

from bridge import mcp_manifest
from bridge.mcp_proxy import Relay

pytestmark = pytest.mark.slow


def test_the_manifest_is_what_the_server_answers():
    assert mcp_manifest.load() == json.loads(mcp_manifest.render(mcp_manifest.build())), (
        "bridge/mcp_manifest.json is stale: run `python -m bridge.mcp_manifest`"
    )


def test_an_unknown_protocol_version_gets_the_servers_own_counter_offer():
    manifest = mcp_manifest.load()
    assert manifest is not None
    assert mcp_manifest.initialize_result(manifest, "2025-06-18")["protocolVersion"] == "2025-06-18"
    fallback = mcp_manifest.initialize_result(manifest, "1999-01-01")
    assert fallback == manifest["initialize"][mcp_manifest.UNKNOWN_VERSION]
    assert mcp_manifest.initialize_result(manifest, None) == fallback


def test_tools_are_listed_before_the_daemon_runs_and_calls_reach_it_after(vault, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(home / "config"))
    out = io.BytesIO()
    relay = Relay(vault, out, start_daemon=False)  # no daemon, and none may be started

    def answers() -> dict:
        return {m["id"]: m for m in map(json.loads, out.getvalue().splitlines()) if "id" in m}

    relay.dispatch(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        }
    )
    relay.dispatch({"jsonrpc": "2.0", "method": "notifications/initialized"})
    relay.dispatch({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    got = answers()
    assert got[1]["result"] == relay.manifest["initialize"]["2025-06-18"]
    assert {t["name"] for t in got[2]["result"]["tools"]} >= {"save_memory", "search_memory", "status"}

    relay.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "status", "arguments": {}}})
    assert "daemon unavailable" in answers()[3]["error"]["message"]  # nothing answered it from the file

    daemon = Daemon(vault, home).start()
    try:
        relay.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "status", "arguments": {}}})
        result = answers()[4]["result"]
        assert not result.get("isError") and result["structuredContent"]["counts"]["stm"] == 31
        assert relay.session and relay.replays == 1  # the client's own initialize opened the daemon's session
        relay.send({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})  # connected: the daemon answers now
        assert answers()[5]["result"] == got[2]["result"]
    finally:
        relay.close()
        daemon.close()
