"""Projects through real MCP clients that declare roots (docs/projects.md): two assistants in two
code folders (atlas, borealis) and one without roots, interleaved over one shared daemon through
the stdio relay, again after the daemon restarts, then over the daemon's streamable HTTP and the
CLI. Each gets its own project's memories plus shared ones, never the other's."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, make_service
from daemon_util import QUIET_LIFECYCLE, Daemon, cli
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from bridge.mcp_server import build_mcp

pytestmark = pytest.mark.slow

TOPICS = [
    ("build system", "Bazel 7", "Gradle 8"),
    ("primary database", "Postgres 16", "MySQL 8"),
    ("deploy day", "Thursday", "Monday"),
    ("CI provider", "Buildkite", "Jenkins"),
    ("frontend framework", "Svelte", "Angular"),
    ("package registry", "Artifactory", "Nexus"),
    ("error tracker", "Sentry", "Rollbar"),
    ("feature flag service", "LaunchDarkly", "Unleash"),
    ("container orchestrator", "Nomad", "Kubernetes"),
    ("message queue", "NATS", "RabbitMQ"),
]
SHARED = "The user prefers short answers without preamble in every chat"
PROJECTS = ("atlas", "borealis")


def own_other(project: str, a: str, b: str) -> tuple[str, str]:
    return (a, b) if project == "atlas" else (b, a)


def data(result):
    assert not result.is_error, result.content
    sc = result.structured_content
    if sc is not None:
        return sc["result"] if set(sc) == {"result"} else sc
    return json.loads(result.content[0].text)


def roots_of(tmp: Path, name: str) -> list[str]:
    folder = tmp / "code" / name
    folder.mkdir(parents=True, exist_ok=True)
    return [folder.as_uri()]


def relay(env: dict, vault: Path, tmp: Path, name: str, *extra: str) -> StdioTransport:
    return StdioTransport(
        command=sys.executable,
        args=["-m", "bridge.cli", "mcp", "--vault", str(vault), *extra],
        env=env,
        cwd=str(ROOT),
        keep_alive=False,
        log_file=tmp / f"relay-{name}.err",
    )


async def save_all(clients: dict, tag: str) -> None:
    """Interleaved: atlas and borealis save the same topics with different facts."""
    for topic, a, b in TOPICS:
        for project in PROJECTS:
            own, _ = own_other(project, a, b)
            saved = data(await clients[project].call_tool("save_memory", {"text": f"Our {topic} is {own} ({tag})"}))
            assert saved["note"]["project"] == project
    shared = data(await clients[None].call_tool("save_memory", {"text": f"{SHARED} ({tag})"}))
    assert shared["note"]["project"] is None


async def check_all(clients: dict) -> dict:
    """0 hits and briefing lines of the other project, shared found by every client, every hit
    named; returns how often the own fact came first."""
    first = asked = 0
    for topic, a, b in TOPICS:
        for project in PROJECTS:
            own, other = own_other(project, a, b)
            answer = data(await clients[project].call_tool("search_memory", {"query": f"which {topic} do we use"}))
            assert answer["project"] == project and answer["all_projects"] is False
            hits = answer["results"]
            assert hits, (project, topic)
            for h in hits:
                assert "project" in h and h["project"] in (project, None), h
                assert other not in h["title"], (project, topic, h["title"])
            asked += 1
            first += own in hits[0]["title"]
            brief = data(await clients[project].call_tool("recall_context", {"topic": f"our {topic}"}))
            assert brief["project"] == project
            assert other not in brief["text"], brief["text"]
            assert all(i["project"] in (project, None) for i in brief["included"])
    for project in (*PROJECTS, None):
        answer = data(await clients[project].call_tool("search_memory", {"query": "short answers preamble"}))
        assert answer["project"] == project
        assert answer["results"] and answer["results"][0]["project"] is None
        assert "short answers" in answer["results"][0]["title"]
    rootless = data(await clients[None].call_tool("search_memory", {"query": "which build system do we use"}))
    assert all(h["project"] is None for h in rootless["results"])
    recent = data(await clients["atlas"].call_tool("recent_memories", {"limit": 200}))
    assert recent["project"] == "atlas" and {i["project"] for i in recent["items"]} == {"atlas", None}
    everything = data(
        await clients["atlas"].call_tool("search_memory", {"query": "which build system", "all_projects": True})
    )
    assert {h["project"] for h in everything["results"]} >= {"atlas", "borealis"}
    return {"first": first, "asked": asked}


def every_note_keyed(vault: Path) -> None:
    for path in (vault / "STM").glob("*.md"):
        text = path.read_text()
        if "Bazel 7" in text or "Postgres 16" in text:
            assert "\nproject: atlas\n" in text, path
        elif "Gradle 8" in text or "MySQL 8" in text:
            assert "\nproject: borealis\n" in text, path
        elif "short answers" in text:
            assert "project:" not in text, path


def test_in_process_clients_of_both_protocol_eras(empty_vault, tmp_path):
    """The same rules for a 2026-07-28 client (roots asked inside each call) and a handshake-era
    one (asked once per session), against one server."""
    svc = make_service(empty_vault)
    mcp = build_mcp(lambda: svc)

    async def go(mode: str) -> dict:
        async with (
            Client(mcp, roots=roots_of(tmp_path, "atlas"), mode=mode) as a,
            Client(mcp, roots=roots_of(tmp_path, "borealis"), mode=mode) as b,
            Client(mcp, mode=mode) as c,
        ):
            clients = {"atlas": a, "borealis": b, None: c}
            await save_all(clients, mode)
            return await check_all(clients)

    try:
        for mode in ("auto", "legacy"):
            counts = asyncio.run(go(mode))
            assert counts["first"] >= 0.9 * counts["asked"], counts
        every_note_keyed(empty_vault)
    finally:
        svc.close()


def test_roots_list_changed_is_followed(empty_vault, tmp_path):
    svc = make_service(empty_vault)
    mcp = build_mcp(lambda: svc)
    roots = roots_of(tmp_path, "atlas")

    async def go() -> tuple[str, str]:
        async with Client(mcp, roots=lambda _ctx: roots, mode="legacy") as c:
            before = data(await c.call_tool("recent_memories", {}))["project"]
            roots[:] = roots_of(tmp_path, "borealis")
            await c.send_roots_list_changed()
            deadline = time.monotonic() + 30
            while True:  # the notice and the next call travel apart: wait for the server to follow it
                after = data(await c.call_tool("recent_memories", {}))["project"]
                if after == "borealis" or time.monotonic() > deadline:
                    return before, after
                await asyncio.sleep(0.05)

    try:
        assert asyncio.run(go()) == ("atlas", "borealis")
    finally:
        svc.close()


def test_config_maps_folders_to_projects(empty_vault, tmp_path):
    (empty_vault / ".mnemovault").mkdir()
    (empty_vault / ".mnemovault" / "config.toml").write_text(
        f'[projects]\n"{tmp_path / "code" / "atlas-web"}" = "atlas"\n"{tmp_path / "code" / "scratch-*"}" = ""\n'
    )
    svc = make_service(empty_vault)
    mcp = build_mcp(lambda: svc)

    async def go() -> list:
        out = []
        for name in ("atlas-web", "scratch-1", "borealis"):
            async with Client(mcp, roots=roots_of(tmp_path, name)) as c:
                out.append(data(await c.call_tool("recent_memories", {}))["project"])
        return out

    try:
        assert asyncio.run(go()) == ["atlas", None, "borealis"]
    finally:
        svc.close()


@pytest.fixture
def shared_daemon(empty_vault, tmp_path):
    d = Daemon(empty_vault, tmp_path / "home", MNEMOVAULT_QUIET_SECONDS="0", **QUIET_LIFECYCLE)
    try:
        yield d.start()
    finally:
        d.close()


def test_relay_sessions_keep_their_projects_over_one_daemon_and_after_a_restart(shared_daemon, empty_vault, tmp_path):
    d = shared_daemon
    env = d.env

    async def session(tag: str, save: bool) -> dict:
        async with (
            Client(relay(env, empty_vault, tmp_path, f"a-{tag}"), roots=roots_of(tmp_path, "atlas"), timeout=120) as a,
            Client(
                relay(env, empty_vault, tmp_path, f"b-{tag}"),
                roots=roots_of(tmp_path, "borealis"),
                mode="legacy",  # a handshake-era client through the relay: roots/list goes through it
                timeout=120,
            ) as b,
            Client(relay(env, empty_vault, tmp_path, f"c-{tag}"), timeout=120) as c,
            Client(relay(env, empty_vault, tmp_path, f"p-{tag}", "--project", "borealis"), timeout=120) as p,
        ):
            clients = {"atlas": a, "borealis": b, None: c}
            if save:
                await save_all(clients, tag)
            counts = await check_all(clients)
            # --project overrides: a client without roots whose config names the project
            answer = data(await p.call_tool("search_memory", {"query": "which build system do we use"}))
            assert answer["project"] == "borealis"
            assert {h["project"] for h in answer["results"]} <= {"borealis", None}
            assert any("Gradle 8" in h["title"] for h in answer["results"])
            return counts

    counts = asyncio.run(asyncio.wait_for(session("one", True), 600))
    assert counts["first"] >= 0.9 * counts["asked"], counts
    every_note_keyed(empty_vault)
    d.stop()
    d.start()
    counts = asyncio.run(asyncio.wait_for(session("two", False), 600))
    assert counts["first"] >= 0.9 * counts["asked"], counts

    # the daemon's own streamable HTTP endpoint: the server asks the client for its roots
    url = f"{d.url}/mcp"

    async def http() -> dict:
        token = d.info["token"]
        async with (
            Client(url, auth=token, roots=roots_of(tmp_path, "atlas"), timeout=120) as a,
            Client(url, auth=token, roots=roots_of(tmp_path, "borealis"), mode="legacy", timeout=120) as b,
            Client(url, auth=token, timeout=120) as c,
        ):
            clients = {"atlas": a, "borealis": b, None: c}
            await save_all(clients, "http")
            return await check_all(clients)

    counts = asyncio.run(asyncio.wait_for(http(), 600))
    assert counts["first"] >= 0.9 * counts["asked"], counts
    every_note_keyed(empty_vault)

    # the CLI, through the same daemon: --project, --all-projects, and the current folder's
    found = json.loads(
        cli(
            "search",
            "which build system do we use",
            "--vault",
            str(empty_vault),
            "--project",
            "atlas",
            "--json",
            env=env,
        ).stdout
    )
    assert found["project"] == "atlas" and {h["project"] for h in found["results"]} <= {"atlas", None}
    assert any("Bazel 7" in h["title"] for h in found["results"])
    everything = json.loads(
        cli("search", "which build system", "--vault", str(empty_vault), "--all-projects", "--json", env=env).stdout
    )
    assert {h["project"] for h in everything["results"]} >= {"atlas", "borealis"}
    env_here = {k: v for k, v in env.items() if k != "MNEMOVAULT_PROJECT"}
    here = tmp_path / "code" / "borealis"
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bridge.cli",
            "search",
            "which build system do we use",
            "--vault",
            str(empty_vault),
            "--json",
        ],
        env=env_here,
        cwd=here,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = json.loads(done.stdout)
    assert found["project"] == "borealis" and {h["project"] for h in found["results"]} <= {"borealis", None}
    saved = subprocess.run(
        [
            sys.executable,
            "-m",
            "bridge.cli",
            "save",
            "Our release train leaves every second Tuesday",
            "--vault",
            str(empty_vault),
            "--json",
        ],
        env=env_here,
        cwd=here,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(saved.stdout)["note"]["project"] == "borealis", saved.stderr


def test_the_cli_takes_the_current_folders_project(empty_vault, tmp_path, monkeypatch):
    """In a terminal: the folder's project (a repository's, from deep inside it), the config's
    mapping, MNEMOVAULT_PROJECT, --project and --all-projects; no daemon: the engine in process."""
    from typer.testing import CliRunner

    from bridge.cli import app

    repo = tmp_path / "code" / "atlas"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    monkeypatch.delenv("MNEMOVAULT_PROJECT")
    runner = CliRunner()

    def run(*args: str) -> dict:
        out = runner.invoke(app, [*args, "--vault", str(empty_vault), "--json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)

    monkeypatch.chdir(repo / "src" / "deep")
    assert run("save", "Our build system is Bazel 7 in this repository")["note"]["project"] == "atlas"
    assert run("save", "The user prefers short answers in every chat", "--shared")["note"]["project"] is None
    found = run("search", "build system short answers")
    assert found["project"] == "atlas" and {h["project"] for h in found["results"]} == {"atlas", None}
    monkeypatch.chdir(empty_vault)  # inside the vault: shared
    assert {h["project"] for h in run("search", "build system short answers")["results"]} == {None}
    monkeypatch.setenv("MNEMOVAULT_PROJECT", "atlas")
    assert run("search", "build system")["project"] == "atlas"
    monkeypatch.delenv("MNEMOVAULT_PROJECT")
    assert run("search", "build system", "--project", "borealis")["results"] == []
    assert {h["project"] for h in run("search", "build system short", "--all-projects")["results"]} == {"atlas", None}
    (empty_vault / ".mnemovault").mkdir()
    (empty_vault / ".mnemovault" / "config.toml").write_text(f'[projects]\n"{repo / "src"}" = "atlas-core"\n')
    monkeypatch.chdir(repo / "src" / "deep")
    assert run("search", "build system")["project"] == "atlas-core"
    status = run("status")
    assert status["projects"] == {"": 1, "atlas": 1}


def test_roots_are_asked_on_the_calls_own_stream_before_the_client_opens_its_get_stream(shared_daemon, tmp_path):
    """A handshake-era client whose first call comes before its GET stream is open (the relay
    opens that stream beside the first call): the daemon asks for the roots on the call's own
    response stream, so the call is filed under the roots' project at once, not after the
    roots timeout as shared."""
    import httpx

    d = shared_daemon
    headers = {
        "Authorization": f"Bearer {d.info['token']}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "no-get-stream", "version": "1"},
        },
    }

    def events(resp: httpx.Response):
        data: list[str] = []
        for line in resp.iter_lines():
            if line.startswith("data:"):
                data.append(line[5:].strip())
            elif not line and data:
                yield json.loads("\n".join(data))
                data = []

    with httpx.Client(base_url=d.url, timeout=120) as http:
        opened = http.post("/mcp", json=init, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        headers["MCP-Protocol-Version"] = "2025-11-25"
        http.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "save_memory", "arguments": {"text": "Borealis nightly builds run on the old cluster"}},
        }
        with http.stream("POST", "/mcp", json=call, headers=headers) as resp:
            stream = events(resp)
            asked = next(stream)
            assert asked.get("method") == "roots/list", asked  # on this call's stream, not the GET stream
            roots = [{"uri": uri} for uri in roots_of(tmp_path, "borealis")]
            answered = http.post(
                "/mcp", json={"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": roots}}, headers=headers
            )
            assert answered.status_code == 202, answered.text
            result = next(m for m in stream if m.get("id") == 2)
    saved = result["result"]["structuredContent"]
    assert saved["note"]["project"] == "borealis", saved
