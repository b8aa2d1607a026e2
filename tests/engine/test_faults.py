"""Faults a person's machine throws at the engine: a journal entry recovery cannot finish, a
corrupt index, a vault config pointing outside the vault, loose permissions on the bridge
and token files, a slow event-stream client, a read-only vault, a full disk, a failed
background sweep. Real files, real SQLite, real daemons, real HTTP, a real MCP client."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from conftest import SAMPLE, make_service
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, cli, index_path_of, wait_for
from fastmcp import Client

from bridge.errors import error_body, http_status
from bridge.mcp_server import build_mcp
from vault_sync.errors import DiskFull, PermissionDenied, StorageFault, VaultReadOnly

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions, mounts and signals")

NOTE = "Atlas API rate limit is 600 requests per minute.md"
TEMP_MARK = ".mvtmp-"


def _run(cmd: list[str]) -> bool:
    return subprocess.run(cmd, capture_output=True).returncode == 0


@contextmanager
def read_only(path: Path):
    """Make `path` unwritable in a way its owner respects: as root (where chmod stops
    nothing) a read-only bind mount of the folder on itself; otherwise chmod a-w."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [path, *path.rglob("*")]}
        for p in modes:
            p.chmod(stat.S_IMODE(modes[p]) & ~0o222)
        try:
            yield "permission_denied"
        finally:
            for p, mode in modes.items():
                p.chmod(stat.S_IMODE(mode))
        return
    if not _run(["mount", "--bind", str(path), str(path)]):
        pytest.skip("root, but cannot bind-mount (no CAP_SYS_ADMIN): no way to make the vault read-only")
    try:
        if not _run(["mount", "-o", "remount,bind,ro", str(path)]):
            pytest.skip("root, but cannot remount read-only")
        yield "read_only"
    finally:
        if not _run(["umount", str(path)]):
            _run(["umount", "-l", str(path)])


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- 3. recovery never blocks start-up --


def _poison_journal(vault: Path) -> Path:
    """A move that reached Archive/ whose journal holds a key with a newline (a hostile
    key smuggled into the journal): completing it raises a PatchError on every start."""
    (vault / "Archive").mkdir(exist_ok=True)
    os.replace(vault / "STM" / NOTE, vault / "Archive" / NOTE)
    journal = vault / ".mnemovault" / "journal"
    journal.mkdir(parents=True, exist_ok=True)
    entry = {
        "src": f"STM/{NOTE}",
        "dst": f"Archive/{NOTE}",
        "reason": "archived on request",
        "id": None,
        "keys": {"status": "archived", "evil\nkey": "x"},
        "rewrite": True,
    }
    path = journal / "0badc0de.json"
    path.write_text(json.dumps(entry), encoding="utf-8")
    return path


def _copies(vault: Path, name: str) -> list[Path]:
    return [p for p in vault.rglob(name) if ".mnemovault" not in p.parts]


def test_poisoned_journal_entry_is_quarantined_and_recover_never_raises(vault, tmp_path):
    entry = _poison_journal(vault)
    svc = make_service(vault)
    try:
        lines = svc.recover()
        assert len(lines) == 1 and "quarantined" in lines[0] and f"Archive/{NOTE}" in lines[0], lines
        assert not entry.exists() and not list(entry.parent.glob("*.json"))
        q = svc.status()["quarantined"]
        assert [item["file"] for item in q] == [".mnemovault/journal/quarantine/0badc0de.json"]
        assert "PatchError" in q[0]["cause"] and f"the note is at Archive/{NOTE}" in q[0]["todo"]
        kept = json.loads((vault / q[0]["file"]).read_text(encoding="utf-8"))
        assert kept["src"] == f"STM/{NOTE}" and kept["quarantined"]["cause"] == q[0]["cause"]
        assert svc.recover() == []  # set aside once: the next start is quiet
    finally:
        svc.close()


def test_daemon_starts_over_a_poisoned_journal_entry(vault, tmp_path):
    _poison_journal(vault)
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE)
    try:
        d.start()  # the old code exited here with a PatchError traceback, at every start
        status = d.status()
        assert [item["file"] for item in status["quarantined"]] == [".mnemovault/journal/quarantine/0badc0de.json"]
        assert "check its frontmatter" in status["quarantined"][0]["todo"]
        assert "quarantined the unfinished move" in d.log_text()
        assert "readable by others" not in d.log_text()  # folders it creates are private from the start
        assert _copies(vault, NOTE) == [vault / "Archive" / NOTE]  # present exactly once
        assert d.get("/api/note", params={"path": f"Archive/{NOTE}"}).status_code == 200
        assert d.get("/api/note", params={"path": f"STM/{NOTE}"}).status_code == 404
        assert d.stop() == 0
        d.start()  # and again: nothing left to trip over
        assert len(d.status()["quarantined"]) == 1
    finally:
        d.close()


# -- 3. a corrupt index is set aside and rebuilt --


def test_corrupt_index_is_set_aside_and_rebuilt_by_every_command(vault, tmp_path):
    home = tmp_path / "home"
    env = child_env(home)
    index = index_path_of(home, vault)
    assert cli("sync", "--vault", str(vault), env=env).returncode == 0
    for args in (["sync"], ["sync", "--rebuild"], ["status", "--json"], ["search", "rate limit", "--json"]):
        garbage = os.urandom(8192)
        index.write_bytes(garbage)
        before = set(index.parent.iterdir())
        r = cli(*args, "--vault", str(vault), env=env)
        assert r.returncode == 0, (args, r.stderr)
        aside = [
            p
            for p in set(index.parent.iterdir()) - before
            if ".corrupt-" in p.name and not p.name.endswith(("-wal", "-shm"))
        ]
        assert len(aside) == 1 and aside[0].read_bytes() == garbage, args
        lines = [line for line in r.stderr.splitlines() if "unreadable" in line]
        assert len(lines) == 1 and str(aside[0]) in lines[0] and "rebuilding it from the vault" in lines[0], r.stderr
    status = json.loads(cli("status", "--json", "--vault", str(vault), env=env).stdout)
    assert status["counts"]["stm"] == len(list((vault / "STM").glob("*.md")))

    index.write_bytes(os.urandom(8192))
    d = Daemon(vault, home, **QUIET_LIFECYCLE)
    try:
        d.start()
        assert d.status()["counts"]["stm"] == status["counts"]["stm"]
        assert "unreadable" in d.log_text()
    finally:
        d.close()


def test_a_locked_index_is_not_mistaken_for_a_corrupt_one(tmp_path):
    """Only "not a database" / "malformed" set the file aside; other errors still raise."""
    import sqlite3

    from vault_sync.index.store import IndexStore

    folder = tmp_path / "not-a-file.sqlite3"
    folder.mkdir()
    with pytest.raises(sqlite3.OperationalError):
        IndexStore(folder)
    assert folder.is_dir() and not list(tmp_path.glob("*.corrupt-*"))


# -- 6. the vault cannot point outside itself --


def test_vault_config_cannot_choose_the_index_path(empty_vault, tmp_path, caplog, monkeypatch):
    from vault_sync.service import MemoryService
    from vault_sync.settings import load_settings

    outside = tmp_path / "elsewhere" / "victim.txt"
    outside.parent.mkdir()
    outside.write_bytes(b"someone else's file\n")
    outside.chmod(0o644)
    (empty_vault / "STM" / "secret plan.md").write_text("the full text of a note\n", encoding="utf-8")
    config = empty_vault / ".mnemovault" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'index_path = "{outside}"\nhalf_life_days = 5\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mnemovault.settings"):
        settings = load_settings(vault=empty_vault, embeddings=False)
    assert settings.half_life_days == 5  # the rest of the vault's config still counts
    assert settings.resolved_index_path() != outside
    assert any(str(config) in r.getMessage() and "index_path" in r.getMessage() for r in caplog.records)
    svc = MemoryService(settings)
    try:
        svc.sync()
    finally:
        svc.close()
    assert outside.read_bytes() == b"someone else's file\n" and stat.S_IMODE(outside.stat().st_mode) == 0o644
    assert sorted(p.name for p in outside.parent.iterdir()) == ["victim.txt"]
    # the person's own config file and env still choose it
    own = tmp_path / "mine.sqlite3"
    (Path(os.environ["MNEMOVAULT_CONFIG_DIR"])).mkdir(parents=True, exist_ok=True)
    (Path(os.environ["MNEMOVAULT_CONFIG_DIR"]) / "config.toml").write_text(f'index_path = "{own}"\n', encoding="utf-8")
    assert load_settings(vault=empty_vault).resolved_index_path() == own
    monkeypatch.setenv("MNEMOVAULT_INDEX_PATH", str(tmp_path / "env.sqlite3"))
    assert load_settings(vault=empty_vault).resolved_index_path() == tmp_path / "env.sqlite3"


def test_loose_bridge_and_token_files_are_fixed_with_a_warning(caplog):
    from bridge.paths import bridge_file, config_dir, device_token, private_write, token_file

    top = config_dir()
    (top / "bridges").mkdir(parents=True)
    top.chmod(0o755)
    (top / "bridges").chmod(0o777)
    token_file().write_text("t" * 43 + "\n", encoding="utf-8")
    token_file().chmod(0o644)
    bfile = bridge_file(Path("/some/vault"))
    bfile.write_text("{}", encoding="utf-8")
    bfile.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="mnemovault.paths"):
        assert device_token() == "t" * 43  # reused, not replaced
        private_write(bfile, '{"port": 1}')
    mode = lambda p: stat.S_IMODE(p.stat().st_mode)  # noqa: E731
    assert (mode(top), mode(top / "bridges"), mode(token_file()), mode(bfile)) == (0o700, 0o700, 0o600, 0o600)
    warned = " ".join(r.getMessage() for r in caplog.records)
    for path, was in ((top, "755"), (top / "bridges", "777"), (token_file(), "644"), (bfile, "644")):
        assert f"{path} was readable by others (mode {was})" in warned
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mnemovault.paths"):
        device_token()
        private_write(bfile, "{}")
    assert not caplog.records  # once fixed, nothing more to say


def test_daemon_fixes_a_loose_config_folder(vault, tmp_path):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config").chmod(0o777)
    d = Daemon(vault, home, **QUIET_LIFECYCLE)
    try:
        d.start()
        assert stat.S_IMODE((home / "config").stat().st_mode) == 0o700
        assert stat.S_IMODE(d.bridge.parent.stat().st_mode) == 0o700
        assert "readable by others (mode 777)" in d.log_text()
    finally:
        d.close()


# -- 7. an event stream that says when it drops --


@contextmanager
def http_bridge(svc, token: str = "k" * 40):
    """build_app served by uvicorn on 127.0.0.1 in a thread; yields the port."""
    import uvicorn

    from bridge.http_app import build_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(svc, token, lambda: port), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    assert wait_for(lambda: server.started, 10)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def _read_events(
    conn: socket.socket, quiet: float = 3.0, limit: float = 60, enough=lambda events: False
) -> list[tuple[str, dict]]:
    """Every event the server sends until `enough(events)`, or it has been quiet for `quiet` seconds."""
    conn.settimeout(quiet)
    buf, events = b"", []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not enough(events):
        try:
            chunk = conn.recv(1 << 16)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
        while b"\n\n" in buf:
            block, buf = buf.split(b"\n\n", 1)
            lines = dict(
                line.split(": ", 1) for line in block.decode().splitlines() if line.startswith(("event", "data"))
            )
            if "event" in lines:
                events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_slow_event_client_gets_a_resync_with_the_count(service, caplog):
    total = 20_000
    with http_bridge(service) as port, caplog.at_level(logging.WARNING, logger="mnemovault.bridge"):
        conn = socket.create_connection(("127.0.0.1", port))
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.sendall(
            f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {'k' * 40}\r\n\r\n".encode()
        )
        assert wait_for(lambda: service._has_listeners(), 10)
        pad = "x" * 300
        for i in range(total):  # the client reads nothing meanwhile
            service.emit("indexed", {"path": f"STM/n{i}.md", "id": None, "i": i, "pad": pad})
        time.sleep(1.0)

        def accounted(events) -> bool:  # on a loaded machine the last events may come after a pause
            return sum(1 if k == "indexed" else d["dropped"] if k == "resync" else 0 for k, d in events) >= total

        events = _read_events(conn, quiet=20, limit=120, enough=accounted)
        conn.close()
    assert events[0][0] == "hello"
    resyncs = [data["dropped"] for kind, data in events if kind == "resync"]
    delivered = [data["i"] for kind, data in events if kind == "indexed"]
    assert resyncs and all(n > 0 for n in resyncs)
    assert len(delivered) + sum(resyncs) == total  # every event delivered or counted
    # a resync stands exactly where its events went missing: what follows it is newer than all of them
    last = -1
    for kind, data in events[1:]:
        if kind == "resync":
            last += data["dropped"]
        else:
            assert data["i"] == last + 1
            last = data["i"]
    assert last == total - 1
    logged = [r.getMessage() for r in caplog.records if "missed" in r.getMessage()]
    assert logged == [f"event stream: a slow client missed {n} events; sent it a resync" for n in resyncs]


# -- 8. faults reported, not 500 --


def _no_temp_names(text: str) -> None:
    assert TEMP_MARK not in text and "Errno" not in text, text


def test_read_only_vault_is_a_clear_error_on_every_front_end(vault, tmp_path):
    svc = make_service(vault)
    try:
        before = snapshot(vault)
        with read_only(vault) as code:
            for op in (
                lambda: svc.save("Deploys happen on Tuesdays after the standup", tags=["ops"]),
                lambda: svc.touch(f"STM/{NOTE}"),
                lambda: svc.archive(f"STM/{NOTE}"),
                lambda: svc.promote(f"STM/{NOTE}"),
            ):
                with pytest.raises(StorageFault) as err:
                    op()
                assert err.value.code == code and isinstance(err.value, (VaultReadOnly, PermissionDenied))
                assert http_status(err.value) == 423 and error_body(err.value)["error"]["code"] == code
                _no_temp_names(str(err.value))
            with pytest.raises(StorageFault) as err:
                svc.touch(f"STM/{NOTE}")
            assert NOTE in str(err.value) and ("read-only" in str(err.value) or "permission" in str(err.value))

            async def tool_errors():
                async with Client(build_mcp(lambda: svc)) as c:
                    out = []
                    for tool, args in (
                        ("touch_memory", {"ref": f"STM/{NOTE}"}),
                        ("save_memory", {"text": "The standup moved to 9:30 on Mondays"}),
                    ):
                        result = await c.call_tool(tool, args, raise_on_error=False)
                        assert result.is_error
                        out.append(result.content[0].text)
                    return out

            for text in asyncio.run(tool_errors()):
                assert text.startswith(f"{code}: cannot write"), text
                _no_temp_names(text)
        assert snapshot(vault) == before
    finally:
        svc.close()


def test_read_only_vault_over_http_is_423_not_500(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE)
    try:
        d.start()
        before = snapshot(vault)
        with read_only(vault) as code:
            for path, body in (
                ("/api/touch", {"ref": f"STM/{NOTE}"}),
                ("/api/archive", {"ref": f"STM/{NOTE}"}),
                ("/api/rpc", {"op": "save", "args": {"text": "Lunch orders go in by 11:30 on Fridays"}}),
            ):
                r = d.post(path, body)
                assert r.status_code == 423, (path, r.text)
                assert r.json()["error"]["code"] == code
                _no_temp_names(r.json()["error"]["message"])
        assert snapshot(vault) == before
        assert d.post("/api/touch", {"ref": f"STM/{NOTE}"}).status_code == 200  # writable again: works again
    finally:
        d.close()


def test_full_disk_is_507_disk_full(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("filling a small tmpfs needs root (mount); nothing else fills a disk safely")
    vault = tmp_path / "small"
    vault.mkdir()
    if not _run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(vault)]):
        pytest.skip("cannot mount a tmpfs here")
    try:
        shutil.copytree(SAMPLE / "STM", vault / "STM")
        svc = make_service(vault)
        try:
            fd = os.open(vault / ".filler", os.O_WRONLY | os.O_CREAT)  # fill every byte left
            try:
                while os.write(fd, b"\0" * 512):
                    pass
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
            finally:
                os.close(fd)
            for op in (
                lambda: svc.save("The printer on floor three jams on A3 paper", tags=["office"]),
                lambda: svc.touch(f"STM/{NOTE}"),
            ):
                with pytest.raises(DiskFull) as err:
                    op()
                assert err.value.code == "disk_full" and http_status(err.value) == 507
                assert "the disk is full" in str(err.value)
                _no_temp_names(str(err.value))
            assert not [p for p in (vault / "STM").iterdir() if TEMP_MARK in p.name]  # nothing left behind
        finally:
            svc.close()
    finally:
        _run(["umount", str(vault)]) or _run(["umount", "-l", str(vault)])


def test_failed_background_sweep_shows_in_status_and_as_an_event(vault, tmp_path):
    env = dict(QUIET_LIFECYCLE, MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS="2")
    d = Daemon(vault, tmp_path / "home", **env)
    with read_only(vault / "STM"):  # scores are due (the sample's now is days ago) but cannot be written
        try:
            d.start()
            with httpx.Client(headers=d.auth, timeout=httpx.Timeout(30, read=30)) as client:
                with client.stream("GET", d.url + "/api/events") as stream:
                    event, lines = None, stream.iter_lines()
                    deadline = time.monotonic() + 60  # pings every 15 s keep the read alive
                    for line in lines:
                        if time.monotonic() > deadline:
                            break
                        if line == "event: background_error":
                            event = json.loads(next(lines).removeprefix("data: "))
                            break
            assert event and event["task"] == "lifecycle" and "could not be written" in event["message"]
            bg = d.status()["background"]
            assert bg["last_run"] and bg["last_error"]["task"] == "lifecycle" and bg["last_error"]["at"]
            assert "STM/" in bg["last_error"]["message"]
            _no_temp_names(bg["last_error"]["message"])
        finally:
            d.close()


def test_mcp_stdio_starts_over_a_poisoned_journal_entry(vault, tmp_path):
    _poison_journal(vault)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    # --in-process: the relay would start a daemon (its start-up is test_daemon_starts_over_...)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bridge.cli", "mcp", "--in-process", "--vault", str(vault)],
        env=child_env(tmp_path / "home"),
        cwd=str(Path(__file__).resolve().parent.parent.parent),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        proc.stdin.write(json.dumps(init) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline() or "{}")  # the old code exited before answering
        assert answer.get("id") == 1 and "result" in answer, answer
    finally:
        proc.stdin.close()
        proc.wait(30)
    assert "journal: quarantined the unfinished move" in proc.stderr.read()
    assert _copies(vault, NOTE) == [vault / "Archive" / NOTE]


def test_background_failures_are_recorded_without_temp_names_and_cleared_by_a_clean_run(service):
    from vault_sync import background

    heard = []
    service.subscribe(lambda kind, data: heard.append((kind, data)))
    assert service.status()["background"] == {"last_run": None, "last_error": None}
    exc = OSError(errno.EROFS, "Read-only file system", "/v/.mnemovault/.lease.json.mvtmp-1234")
    background.failed(service.engine, "lifecycle", exc)
    bg = service.status()["background"]
    assert bg["last_error"] == {
        "at": "2026-11-20T12:00:00Z",
        "task": "lifecycle",
        "message": "cannot write to the vault: the vault's file system is read-only; mount it writable, then try again",
    }
    assert heard == [("background_error", bg["last_error"])]
    background.record(service.engine, "embeddings")  # another task's clean run leaves it
    assert service.status()["background"]["last_error"]["task"] == "lifecycle"
    background.record(service.engine, "lifecycle")
    assert service.status()["background"] == {"last_run": "2026-11-20T12:00:00Z", "last_error": None}
