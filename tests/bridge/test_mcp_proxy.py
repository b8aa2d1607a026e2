"""`mnemovault mcp` as a relay to the daemon: real daemons in subprocesses, real stdio
sessions with fastmcp's Client running `python -m bridge.cli mcp --vault V`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from conftest import ROOT
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, wait_for
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from bridge.mcp_server import build_mcp

pytestmark = pytest.mark.slow
HEAVY = ("vault_sync", "numpy", "torch", "sentence_transformers", "fastmcp", "mcp", "typer")


def proxy(env: dict, vault: Path, report: Path | None = None, log: Path | None = None) -> StdioTransport:
    env = dict(env)
    if report is not None:
        env["MNEMOVAULT_MCP_PROXY_MODULES"] = str(report)
    return StdioTransport(
        command=sys.executable,
        args=["-m", "bridge.cli", "mcp", "--vault", str(vault)],
        env=env,
        cwd=str(ROOT),
        keep_alive=False,
        log_file=log,
    )


def data(result):
    assert not result.is_error, result.content
    sc = result.structured_content
    if sc is not None:
        return sc["result"] if set(sc) == {"result"} else sc
    return json.loads(result.content[0].text)


def cli_pids(vault: Path, command: bytes) -> list[int]:
    """Live `bridge.cli <command>` processes (mcp, daemon) for this vault."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"bridge.cli" in cmd and command in cmd and str(vault).encode() in cmd and alive(int(entry.name)):
            pids.append(int(entry.name))
    return pids


def holders(path: Path) -> set[int]:
    """Processes with `path` open (via /proc/*/fd)."""
    found = set()
    target = str(path.resolve())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                try:
                    if os.readlink(fd) == target:
                        found.add(int(entry.name))
                        break
                except OSError:
                    continue
        except OSError:
            continue
    return found


def fd_kinds(pid: int) -> list[str]:
    out = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            out.append(os.readlink(fd))
        except OSError:
            pass
    return out


def bridge_pid(d: Daemon) -> int | None:
    try:
        return json.loads(d.bridge.read_text(encoding="utf-8"))["pid"]
    except (OSError, ValueError, KeyError):
        return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie (exited, not yet reaped) is not alive
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def stop_pid(pid: int | None) -> None:
    """Stop a daemon the proxy started (not our child): SIGTERM, then SIGKILL."""
    if pid is None or not alive(pid):
        return
    os.kill(pid, signal.SIGTERM)
    if not wait_for(lambda: not alive(pid), timeout=20):
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not alive(pid), timeout=10)


@pytest.fixture
def daemon(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home").start()
    yield d
    started_by_proxy = bridge_pid(d)
    d.close()
    if started_by_proxy != (d.proc.pid if d.proc else None):
        stop_pid(started_by_proxy)


async def in_process_tools() -> list[dict]:
    async with Client(build_mcp(lambda: None)) as c:
        return sorted((t.model_dump(exclude_none=True) for t in await c.list_tools()), key=lambda t: t["name"])


def test_three_sessions_relay_to_one_daemon(daemon, vault, tmp_path):
    reports = [tmp_path / f"modules-{i}.json" for i in range(3)]
    text = f"The proxy test marker {uuid.uuid4().hex[:12]} lives in the relay notes."

    async def go():
        async with AsyncExitStack() as stack:
            sessions = [
                await stack.enter_async_context(
                    Client(proxy(daemon.env, vault, r, tmp_path / f"proxy-{i}.err"), timeout=60)
                )
                for i, r in enumerate(reports)
            ]
            listed = [
                sorted((t.model_dump(exclude_none=True) for t in await s.list_tools()), key=lambda t: t["name"])
                for s in sessions
            ]
            saved = data(await sessions[0].call_tool("save_memory", {"text": text, "tags": ["relay"]}))
            found = data(await sessions[1].call_tool("search_memory", {"query": text.split()[4]}))
            status = data(await sessions[2].call_tool("status", {}))
            bad = await sessions[1].call_tool("read_note", {"path": "../x.md"}, raise_on_error=False)
            resources = await sessions[2].list_resource_templates() + await sessions[2].list_resources()
            pids = cli_pids(vault, b"mcp")
            maps = {pid: Path(f"/proc/{pid}/maps").read_text() for pid in pids}
            fds = {pid: fd_kinds(pid) for pid in pids}
            peak_kb = {
                pid: int(
                    next(
                        line.split()[1]
                        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                        if line.startswith("VmHWM:")
                    )
                )
                for pid in pids
            }
            index_holders = holders(daemon.index_path)
        return listed, saved, found, status, bad, resources, pids, maps, fds, peak_kb, index_holders

    listed, saved, found, status, bad, resources, pids, maps, fds, peak_kb, index_holders = asyncio.run(
        asyncio.wait_for(go(), 120)
    )
    expected = asyncio.run(in_process_tools())
    assert all(tools == expected for tools in listed), "the relay changes nothing in the tool list"
    assert saved["saved"] is True
    assert saved["note"]["path"] in [r["path"] for r in found["results"]], found  # saved by one, found by another
    assert status["counts"]["stm"] == 32
    assert bad.is_error and bad.content[0].text.startswith("bad_path:")
    assert resources, "the daemon's resources pass through"

    assert len(pids) == 3, pids
    for pid in pids:
        assert "libtorch" not in maps[pid] and "numpy" not in maps[pid], "the proxy loaded torch or numpy"
        assert not any("inotify" in f for f in fds[pid]), "the proxy runs no watcher"
        assert peak_kb[pid] < 80_000, f"proxy peak RSS {peak_kb[pid]} kB"
    assert index_holders == {daemon.proc.pid}, "only the daemon holds the index open"
    assert any("inotify" in f for f in fd_kinds(daemon.proc.pid)), "the daemon's watcher is the one watcher"
    for report in reports:
        loaded = json.loads(report.read_text(encoding="utf-8"))
        assert "bridge.mcp_proxy" in loaded
        assert not [m for m in loaded if m.split(".")[0] in HEAVY], "the proxy imported an engine or MCP-library module"


def test_daemon_killed_mid_session_fails_the_call_then_recovers(daemon, vault, tmp_path):
    log = tmp_path / "proxy.err"

    async def go():
        async with Client(proxy(daemon.env, vault, log=log), timeout=60) as c:
            before = data(await c.call_tool("status", {}))
            # freeze the daemon so the next call is certainly in flight, then kill it
            os.kill(daemon.proc.pid, signal.SIGSTOP)
            call = asyncio.create_task(c.call_tool("touch_memory", {"ref": "STM/Staging runs Postgres 16.md"}))
            await asyncio.sleep(1.0)
            assert not call.done()
            daemon.kill()
            started = time.monotonic()
            try:
                await asyncio.wait_for(call, 30)
                in_flight = "no error"
            except Exception as exc:  # noqa: BLE001 - the JSON-RPC error fastmcp raises
                in_flight = str(exc)
            failed_after = time.monotonic() - started
            after = data(await c.call_tool("status", {}))  # the relay restarts the daemon
            again = data(await c.call_tool("search_memory", {"query": "postgres"}))
        return before, in_flight, failed_after, after, again

    before, in_flight, failed_after, after, again = asyncio.run(asyncio.wait_for(go(), 180))
    assert "stopped during this call" in in_flight, in_flight
    assert failed_after < 5, "the call in flight failed at once, no hang"
    assert after["counts"] == before["counts"]
    assert again["results"]
    new_pid = bridge_pid(daemon)
    assert new_pid not in (None, daemon.proc.pid) and alive(new_pid), "a new daemon serves the vault"


def test_no_daemon_starts_one_detached(vault, tmp_path):
    home = tmp_path / "home"
    env = child_env(home)
    watcher = Daemon(vault, home)  # only for its paths (bridge file, index); never started
    first = tmp_path / "modules.json"

    async def session(report=None):
        async with Client(proxy(env, vault, report, tmp_path / "proxy.err"), timeout=120) as c:
            return {t.name for t in await c.list_tools()}, data(await c.call_tool("status", {}))

    async def three_at_once():
        return await asyncio.gather(session(first), session(), session())

    pid = None
    try:
        # three sessions race to start the daemon: one wins the vault lock, all use it
        answers = asyncio.run(asyncio.wait_for(three_at_once(), 180))
        pid = bridge_pid(watcher)
        for names, status in answers:
            assert "search_memory" in names and status["counts"]["stm"] == 31
        assert pid is not None and alive(pid), "the daemon outlives the session"
        assert wait_for(lambda: cli_pids(vault, b"daemon") == [pid], timeout=20), cli_pids(vault, b"daemon")
        assert os.getsid(pid) == pid, "the daemon runs in its own session, detached"
        assert holders(watcher.index_path) == {pid}
        assert (home / "logs" / "mnemovault.log").exists() and list((home / "logs").glob("daemon-*.out"))
        assert not [m for m in json.loads(first.read_text()) if m.split(".")[0] in HEAVY]
        # a second session reuses that daemon instead of starting another
        asyncio.run(asyncio.wait_for(session(), 60))
        assert bridge_pid(watcher) == pid
    finally:
        stop_pid(pid if pid is not None else bridge_pid(watcher))


async def _status_once_answered(c, seconds: float = 90):
    """status through the relay, asked again while the relay says "try again": with a short
    call timeout a loaded machine can make a healthy daemon miss one (the event waited for is
    an answer, not a time)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return data(await c.call_tool("status", {}))
        except Exception as exc:  # noqa: BLE001 - the JSON-RPC error fastmcp raises
            if "try again" not in str(exc) or time.monotonic() > deadline:
                raise


def test_a_daemon_that_stops_answering_times_out_the_call(daemon, vault, tmp_path):
    env = dict(daemon.env, MNEMOVAULT_MCP_CALL_TIMEOUT="2")

    async def go():
        async with Client(proxy(env, vault, log=tmp_path / "proxy.err"), timeout=60) as c:
            await _status_once_answered(c)
            os.kill(daemon.proc.pid, signal.SIGSTOP)  # alive, listening, never answering
            started = time.monotonic()
            try:
                await asyncio.wait_for(c.call_tool("status", {}), 30)
                stuck = "no error"
            except Exception as exc:  # noqa: BLE001 - the JSON-RPC error fastmcp raises
                stuck = str(exc)
            waited = time.monotonic() - started
            os.kill(daemon.proc.pid, signal.SIGCONT)
            after = await _status_once_answered(c)  # a new session on the same daemon
        return stuck, waited, after

    stuck, waited, after = asyncio.run(asyncio.wait_for(go(), 240))
    assert "timed out" in stuck, stuck
    assert waited < 25, "the relay's own timeout ends the call, long before the test's 30 s"
    assert after["counts"]["stm"] == 31
    assert bridge_pid(daemon) == daemon.proc.pid, "a slow daemon is not replaced"


def _fading_note(vault: Path, name: str) -> None:
    """A memory whose live score is in the review zone right now (the daemon's real clock)."""
    from datetime import timedelta

    from vault_sync.dates import format_datetime, utc_now
    from vault_sync.scoring import ScoringParams, in_danger_zone, score
    from vault_sync.settings import load_settings

    params = ScoringParams.from_settings(load_settings(vault=vault))
    target = (params.danger_zone_min + params.danger_zone_max) / 2
    lo, hi = 0.0, 400 * 86400.0  # seconds since last use: the score falls as this grows
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if score(params, 1, mid, 1.0) > target else (lo, mid)
    assert in_danger_zone(params, score(params, 1, lo, 1.0))
    when = format_datetime(utc_now() - timedelta(seconds=lo))
    (vault / "STM" / f"{name}.md").write_text(
        f"---\nid: {uuid.uuid4()}\ncreated: {when}\nlast_used: {when}\nuse_count: 1\nstrength: 1.0\n"
        f"status: active\n---\nThe {name} fact is fading and should be reviewed soon.\n",
        encoding="utf-8",
    )


def test_a_notification_outside_any_call_reaches_the_stdio_client(vault, tmp_path):
    """The daemon tells its sessions when the review queue changes (resources/updated for
    mnemovault://review) on its own; the relay passes it on from the session's GET stream
    while no call is in flight."""
    from mcp import types as mt

    d = Daemon(vault, tmp_path / "home", MNEMOVAULT_QUIET_SECONDS="0", **QUIET_LIFECYCLE).start()
    seen: list[str] = []

    async def go():
        arrived = asyncio.Event()

        async def handler(message):
            note = getattr(message, "root", message)
            if isinstance(note, mt.ResourceUpdatedNotification):
                seen.append(str(note.params.uri))
                arrived.set()

        # the handshake era (initialize, a session, its GET stream): what assistants speak today; at
        # 2026-07-28 change notifications travel only on a subscriptions/listen stream instead
        async with Client(
            proxy(d.env, vault, log=tmp_path / "proxy.err"), mode="legacy", message_handler=handler, timeout=60
        ) as c:
            assert c.initialize_result is not None
            before = [r["path"] for r in json.loads((await c.read_resource("mnemovault://review"))[0].text)]
            await asyncio.sleep(1.0)  # the relay's stream is open; from here no call is made
            _fading_note(vault, "Parking permit renewal")  # written by hand, as in Obsidian
            await asyncio.wait_for(arrived.wait(), 30)
            after = [r["path"] for r in json.loads((await c.read_resource("mnemovault://review"))[0].text)]
        return before, after

    try:
        before, after = asyncio.run(asyncio.wait_for(go(), 90))
    finally:
        d.close()
    assert seen and set(seen) == {"mnemovault://review"}
    assert "STM/Parking permit renewal.md" in after and "STM/Parking permit renewal.md" not in before
