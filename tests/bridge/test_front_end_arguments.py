"""The front door: typed, bounded arguments on every front end; owned keys only
the engine writes; the same defaults everywhere; clean errors for hostile or careless input.

Real daemons over real HTTP on 127.0.0.1, the MCP in-memory Client, the CLI in a subprocess.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import socket
import sys
import time
from pathlib import Path

import httpx
import pytest
from conftest import SAMPLE, make_service
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, cli
from fastmcp import Client

from bridge.mcp_server import build_mcp

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and /proc")

STAGING = "STM/Staging runs Postgres 16.md"
MB = 1024 * 1024


def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every file of the vault, the journal included (the lease, device and lock files are the daemon's)."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "lease.json" and not p.name.startswith("daemon-") and p.parent.name != "devices"
    }


@pytest.fixture(scope="module")
def door(tmp_path_factory):
    """One daemon for the refusal tests: each refused request must leave its vault as it was."""
    base = tmp_path_factory.mktemp("door")
    vault = base / "vault"
    shutil.copytree(SAMPLE, vault)
    d = Daemon(vault, base / "home", **QUIET_LIFECYCLE)
    try:
        d.start()
        assert d.post("/api/rpc", {"op": "sweep", "args": {}}).status_code == 200  # scores current first
        yield d
    finally:
        d.close()


def refused(resp: httpx.Response, field: str | None = None, status: int = 400) -> str:
    assert resp.status_code == status, resp.text[:500]
    message = resp.json()["error"]["message"]
    if field is not None:
        assert field in message, message
    return message


# -- owned keys: /api/rpc archive with `extra` --


def test_rpc_archive_cannot_write_frontmatter_keys(door):
    before = snapshot(door.vault)
    forged = {
        "id": "00000000-0000-0000-0000-000000000000",
        "use_count": 999,
        "strength": 7,
        "status": "active",
        "bad\nkey": "x",
    }
    resp = door.post("/api/rpc", {"op": "archive", "args": {"ref": STAGING, "extra": forged}})
    refused(resp, "extra")
    resp = door.post("/api/rpc", {"op": "archive", "args": {"ref": STAGING, "reason": "x\ny: 1"}})
    refused(resp, "reason")  # archive_reason is the engine's too
    resp = door.post("/api/rpc", {"op": "sweep", "args": {"paths": [STAGING]}})
    refused(resp, "paths")  # an internal argument
    assert snapshot(door.vault) == before
    assert door.get("/api/note", params={"path": STAGING}).json()["kind"] == "stm"


# -- strict types: nothing guessed, nothing 500 --


def test_rpc_refuses_wrong_types_without_acting(door):
    before = snapshot(door.vault)
    text = "The staging cluster is rebuilt every Sunday night"
    refused(door.post("/api/rpc", {"op": "save", "args": {"text": text, "tags": "abc"}}), "tags")
    refused(door.post("/api/rpc", {"op": "touch", "args": {"ref": STAGING, "boost": "no"}}), "boost")
    refused(door.post("/api/rpc", {"op": "gc", "args": {"dry_run": None}}), "dry_run")  # never a real GC
    refused(door.post("/api/rpc", {"op": "review", "args": {"limit": "lots"}}), "limit")
    refused(door.post("/api/rpc", {"op": "review", "args": {"limit": 10**30}}), "limit")
    refused(door.post("/api/rpc", {"op": "search", "args": {"query": 5}}), "query")
    refused(door.post("/api/rpc", {"op": "search", "args": {"query": "postgres", "since_days": 10**400}}), "since_days")
    refused(door.post("/api/rpc", {"op": "cluster", "args": {"threshold": 10**400}}), "threshold")
    refused(door.post("/api/rpc", {"op": "save", "args": {"text": text, "strength": True}}), "strength")
    refused(door.post("/api/rpc", {"op": "get_memory", "args": {"refs": [STAGING, 7]}}), "refs")
    refused(door.post("/api/rpc", {"op": "status", "args": []}))
    assert snapshot(door.vault) == before
    assert door.get("/api/status").status_code == 200


def test_http_endpoints_refuse_unknown_fields_and_wrong_types(door):
    before = snapshot(door.vault)
    refused(door.post("/api/touch", {"ref": STAGING, "extra": {"use_count": 999}}), "extra")
    refused(door.post("/api/touch", {"ref": STAGING, "boost": "no"}), "boost")
    refused(door.post("/api/gc", {"dry_run": None}), "dry_run")
    refused(door.post("/api/gc", {"dry_run": "false"}), "dry_run")
    refused(door.post("/api/archive", {"ref": ["STM/a.md"]}), "ref")
    refused(door.post("/api/promote", {"ref": STAGING, "auto": True}))
    refused(door.get("/api/search", params={"q": "postgres", "limit": "0"}), "limit")
    refused(door.get("/api/search", params={"q": "postgres", "limit": "-3"}), "limit")
    refused(door.get("/api/review", params={"limit": "9" * 40}), "limit")
    refused(door.get("/api/status", params={"debug": "1"}), "debug")
    assert snapshot(door.vault) == before


# -- bounds, and errors that never echo the input --


def test_oversized_fields_are_refused_without_echo(door):
    before = snapshot(door.vault)
    text = "The staging cluster is rebuilt every Sunday night"
    big_tag = "t" * (5 * MB // 10)
    message = refused(door.post("/api/rpc", {"op": "save", "args": {"text": text, "tags": [big_tag]}}), "tags")
    assert "tttttttttttttttttttttttttttttttttttttttttt" not in message and len(message) < 300
    refused(door.post("/api/rpc", {"op": "save", "args": {"text": text, "tags": [f"t{i}" for i in range(51)]}}), "tags")
    refused(door.post("/api/rpc", {"op": "save", "args": {"text": text, "title": "T" * 201}}), "title")
    for bad in ("two\nlines", "evil\u202etxt.exe", "bell\x07"):
        refused(door.post("/api/rpc", {"op": "save", "args": {"text": text, "title": bad}}), "title")
        refused(door.post("/api/rpc", {"op": "save", "args": {"text": text, "tags": [bad]}}), "tag")
        refused(
            door.post("/api/rpc", {"op": "relate", "args": {"a": STAGING, "b": "Welcome.md", "rel_type": bad}}),
            "relation type",
        )
    query = "postgres " * 2000
    message = refused(door.post("/api/rpc", {"op": "search", "args": {"query": query}}), "query")
    assert "postgres postgres" not in message
    refused(door.get("/api/search", params={"q": "q" * 20_000}), status=414)
    assert snapshot(door.vault) == before


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _raw(port: int, token: str, head: str, body_chunks=()) -> bytes:
    """One request on a raw socket (to send a body the server should refuse before reading)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(
            (
                head + f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                "Content-Type: application/json\r\n\r\n"
            ).encode()
        )
        try:
            for chunk in body_chunks:
                s.sendall(chunk)
        except OSError:
            pass  # the server answered and closed: it stopped reading, as it should
        data = b""
        try:
            while True:
                part = s.recv(65536)
                if not part:
                    break
                data += part
        except OSError:
            pass
        return data


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_oversized_requests_keep_daemon_memory_flat(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE)
    try:
        d.start()
        port, token, pid = d.info["port"], d.info["token"], d.proc.pid
        d.get("/api/search", params={"q": "postgres"})  # warm up the search path
        before = _rss_kb(pid)
        started = time.monotonic()
        for _ in range(3):
            # a 20 MB body announced by Content-Length: 413 before a byte of it is read
            answer = _raw(port, token, f"POST /api/rpc HTTP/1.1\r\nContent-Length: {20 * MB}\r\n")
            assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
            # the same without Content-Length (chunked): cut off at the limit while reading
            chunk = b"%x\r\n%s\r\n" % (MB, b"a" * MB)
            _raw(port, token, "POST /api/rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n", [chunk] * 20)
            # a query just under the body limit: refused by its own bound before any search
            resp = d.post("/api/rpc", {"op": "search", "args": {"query": "postgres staging " * 200_000}}, timeout=30)
            assert resp.status_code in (400, 413), resp.text[:300]
            resp = d.post("/api/rpc", {"op": "save", "args": {"text": "x" * 3 * MB}}, timeout=30)
            assert resp.status_code == 400, resp.text[:300]
        assert time.monotonic() - started < 60
        grown_mb = (_rss_kb(pid) - before) / 1024
        assert grown_mb < 100, f"daemon RSS grew by {grown_mb:.0f} MB"
        assert d.alive() and d.get("/api/status").status_code == 200
    finally:
        d.close()


# -- MCP: the same types, the same limits, limit is a hard cap --


def _mcp(svc, tool: str, **args):
    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            return await c.call_tool(tool, args, raise_on_error=False)

    return asyncio.run(go())


def test_mcp_gc_limit_caps_what_is_archived(vault):
    svc = make_service(vault)
    try:
        preview = _mcp(svc, "gc").structured_content
        assert preview["candidates"]["total"] == 5
        done = _mcp(svc, "gc", apply=True, limit=2)
        assert not done.is_error, done.content
        archived = done.structured_content["archived"]
        assert len(archived) == 2
        assert [m["id"] for m in archived] == [c["id"] for c in preview["candidates"]["items"][:2]]  # lowest first
        assert len(list((vault / "Archive").glob("*.md"))) == 2 + 2  # the sample's own two, plus two
        assert _mcp(svc, "gc", apply=True, offset=2, limit=2).is_error
    finally:
        svc.close()


def test_mcp_refuses_wrong_types_and_bad_names(vault):
    svc = make_service(vault)
    try:
        before = snapshot(vault)
        text = "The staging cluster is rebuilt every Sunday night"
        for tool, args, field in [
            ("touch_memory", {"ref": STAGING, "boost": "no"}, "boost"),
            ("save_memory", {"text": text, "tags": "abc"}, "tags"),
            ("save_memory", {"text": text, "title": "evil\u202etxt"}, "title"),
            ("save_memory", {"text": text, "tags": ["t" * 500]}, "tags"),
            ("search_memory", {"query": "q " * 1000}, "query"),
            ("create_relation", {"source": STAGING, "target": "Welcome.md", "relation_type": "x\nstatus"}, "relation"),
        ]:
            result = _mcp(svc, tool, **args)
            assert result.is_error, (tool, args)
            message = result.content[0].text
            assert field in message and len(message) < 400, message
            assert "tttttttttttttttttttt" not in message and "q q q q q q" not in message
        assert snapshot(vault) == before
    finally:
        svc.close()


# -- the engine itself, whatever the front end --


def test_engine_validates_documented_inputs(service, vault):
    from vault_sync.errors import InvalidInput

    before = snapshot(vault)
    text = "The staging cluster is rebuilt every Sunday night"
    for kwargs in (
        {"tags": "abc"},
        {"tags": ["x" * 101]},
        {"tags": [f"t{i}" for i in range(51)]},
        {"title": "a\nb"},
        {"title": "\u202eexe"},
        {"strength": float("nan")},
        {"strength": 10**400},
    ):
        with pytest.raises(InvalidInput):
            service.save(text, **kwargs)
    for limit in (0, -3, 10**30, True):
        with pytest.raises(InvalidInput):
            service.search("postgres", limit=limit)
    with pytest.raises(InvalidInput):
        service.search("postgres " * 500)
    with pytest.raises(TypeError):
        service.archive(STAGING, extra={"use_count": 999})  # no caller-given frontmatter
    with pytest.raises(InvalidInput):
        service.gc(dry_run=None)
    assert snapshot(vault) == before
    assert len(service.gc(dry_run=False, limit=1)["archived"]) == 1


# -- the CLI --


def test_cli_gc_previews_by_default_and_apply_is_capped(vault):
    env = child_env(MNEMOVAULT_QUIET_SECONDS="0")
    before = snapshot(vault)
    r = cli("gc", "--vault", str(vault), "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert '"dry_run": true' in r.stdout
    r = cli("gc", "--dry-run", "--vault", str(vault), "--json", env=env)  # the old spelling still previews
    assert r.returncode == 0 and '"dry_run": true' in r.stdout
    assert snapshot(vault) == before
    r = cli("gc", "--apply", "--limit", "2", "--vault", str(vault), "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('"to": "Archive/') == 2


def test_cli_limits_and_ports_are_clean_errors(vault):
    for args in (
        ["search", "postgres", "--limit", "0"],
        ["search", "postgres", "--limit", "-3"],
        ["search", "postgres", "--limit", "9" * 30],
        ["review", "--limit", "0"],
        ["save", "a memory about the staging cluster", "--strength", "1e999"],
        ["cluster", "--threshold", "1e400"],
        ["daemon", "--port", "99999"],
    ):
        r = cli(*args, "--vault", str(vault))
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and "too large to convert" not in r.stderr, (args, r.stderr)
    r = cli("daemon", "--vault", str(vault), env=child_env(MNEMOVAULT_PORT="99999"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "MNEMOVAULT_PORT" in r.stderr, r.stderr


def test_cli_demo_keeps_notes_a_person_added(tmp_path):
    target = tmp_path / "demo"
    r = cli("demo", str(target), "--no-daemon", timeout=180)
    assert r.returncode == 0, r.stderr
    mine = target / "STM" / "My own note.md"
    mine.write_text("# Mine\n\nWritten by hand in the demo vault.\n", encoding="utf-8")
    r = cli("demo", str(target), "--no-daemon", timeout=180)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "STM/My own note.md" in r.stderr and "did not create" in r.stderr
    assert mine.read_text(encoding="utf-8").startswith("# Mine")
    mine.unlink()  # once the person's note is elsewhere, a fresh copy is made
    r = cli("demo", str(target), "--no-daemon", timeout=180)
    assert r.returncode == 0, r.stderr
