"""The daemon as a real subprocess on a temp vault: live sync seen through the bridge, a
clean SIGTERM stop with the index intact, one daemon per vault, CLI through the daemon."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from conftest import ROOT
from vault_sync.index.store import IndexStore
from vault_sync.index.sync import Indexer
from vault_sync.settings import default_index_path
from vault_sync.vault import Layout

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

STAGING = "STM/Staging runs Postgres 16.md"


def child_env(**extra: str) -> dict[str, str]:
    """The test's environment (its isolated MNEMOVAULT_*_DIR) for a child process."""
    env = dict(os.environ)
    # the scheduled lifecycle still sweeps scores, but moves nothing unless a test asks for it
    env.update({"PYTHONPATH": str(ROOT), "MNEMOVAULT_EMBEDDINGS": "false", "PYTHONUNBUFFERED": "1",
                "MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS": "100000", "MNEMOVAULT_AUTO_PROMOTE": "false",
                "MNEMOVAULT_AUTO_GC": "false"})
    env.pop("MNEMOVAULT_NO_DAEMON", None)
    env.update(extra)
    return env


def cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bridge.cli", *args], env=env or child_env(), cwd=str(ROOT),
                          capture_output=True, text=True, timeout=timeout)


class Daemon:
    """`mnemovault daemon --vault <vault>` in a subprocess; always `close()` it."""

    def __init__(self, vault: Path, log: Path, **env: str):
        from bridge.paths import bridge_file

        self.env = env
        self.vault = vault
        self.bridge = bridge_file(vault)
        self.out_path = log
        self.proc: subprocess.Popen | None = None
        self.info: dict = {}

    def start(self, timeout: float = 60) -> "Daemon":
        self._out = open(self.out_path, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "bridge.cli", "daemon", "--vault", str(self.vault)],
                                     env=child_env(**self.env), cwd=str(ROOT), stdout=self._out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"daemon exited with {self.proc.returncode}:\n{self.output()}")
            try:
                info = json.loads(self.bridge.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                info = {}
            if info.get("pid") == self.proc.pid and self._answers(info):
                self.info = info
                return self
            time.sleep(0.1)
        raise AssertionError(f"daemon did not start in {timeout}s:\n{self.output()}")

    def _answers(self, info: dict) -> bool:
        try:
            httpx.get(f"http://127.0.0.1:{info['port']}/api/status", timeout=2)
            return True
        except httpx.HTTPError:
            return False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.info['port']}"

    @property
    def auth(self) -> dict:
        return {"Authorization": f"Bearer {self.info['token']}"}

    def get(self, path: str, **kw) -> httpx.Response:
        kw.setdefault("headers", self.auth)
        return httpx.get(self.url + path, timeout=30, **kw)

    def post(self, path: str, body=None, **kw) -> httpx.Response:
        kw.setdefault("headers", self.auth)
        return httpx.post(self.url + path, json=body if body is not None else {}, timeout=60, **kw)

    def stop(self, timeout: float = 30) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def output(self) -> str:
        try:
            return self.out_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if getattr(self, "_out", None):
            self._out.close()


def wait_for(predicate, timeout: float = 15, step: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)


def rebuild_dump(vault: Path, tmp: Path) -> dict:
    store = IndexStore(tmp / f"rebuild-{os.urandom(4).hex()}.sqlite3")
    try:
        Indexer(store, Layout(vault)).reconcile()
        return store.canonical_dump()
    finally:
        store.close()


@pytest.fixture
def daemon(vault, tmp_path):
    d = Daemon(vault, tmp_path / "daemon.out")
    try:
        yield d.start()
    finally:
        d.close()


def test_lifecycle_edit_seen_then_sigterm_stops_cleanly_with_index_intact(daemon, vault, tmp_path):
    bfile = daemon.bridge
    assert oct(bfile.stat().st_mode & 0o777) == "0o600"
    info = json.loads(bfile.read_text(encoding="utf-8"))
    assert info["pid"] == daemon.proc.pid and isinstance(info["port"], int) and len(info["token"]) >= 32
    assert Path(info["vault"]) == vault.resolve()

    before = daemon.get("/api/note", params={"path": STAGING}).json()
    assert before["use_count"] == 1
    path = vault / STAGING
    path.write_text(path.read_text(encoding="utf-8").replace("use_count: 1", "use_count: 4"), encoding="utf-8")
    seen = wait_for(lambda: daemon.get("/api/note", params={"path": STAGING}).json()["use_count"] == 4)
    assert seen, "the daemon's watcher did not pick up the edit"
    (vault / "Projects" / "New idea.md").write_text("# New idea\n\nA fresh note written while the daemon runs.\n", encoding="utf-8")
    assert wait_for(lambda: daemon.get("/api/note", params={"path": "Projects/New idea.md"}).status_code == 200)

    assert daemon.stop() == 0
    log = (Path(os.environ["MNEMOVAULT_LOG_DIR"]) / "mnemovault.log").read_text(encoding="utf-8")
    assert "stopped cleanly" in log
    assert "stopped cleanly" in daemon.output()  # the log goes to stderr too
    assert not bfile.exists()

    store = IndexStore(default_index_path(vault))
    try:
        assert store.canonical_dump() == rebuild_dump(vault, tmp_path)
    finally:
        store.close()


def test_scheduled_lifecycle_archives_forgotten_memories(vault, tmp_path):
    d = Daemon(vault, tmp_path / "daemon.out", MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS="0.5", MNEMOVAULT_AUTO_GC="true")
    try:
        d.start()
        forgotten = "STM/Office printer needs the IPP driver.md"  # far below the forget threshold
        assert wait_for(lambda: not (vault / forgotten).exists(), timeout=30), d.output()
        assert (vault / "Archive" / "Office printer needs the IPP driver.md").exists()
        note = d.get("/api/note", params={"path": "Archive/Office printer needs the IPP driver.md"}).json()
        assert note["status"] == "archived"
        assert d.stop() == 0
    finally:
        d.close()


def test_sigterm_with_an_open_event_stream(daemon):
    with httpx.Client(timeout=10) as client:
        with client.stream("GET", daemon.url + "/api/events", headers=daemon.auth) as resp:
            assert resp.status_code == 200
            next(resp.iter_lines())  # the stream is open
            assert daemon.stop(timeout=30) == 0
    assert "stopped cleanly" in daemon.output()


def test_second_daemon_on_the_same_vault_is_refused(daemon, vault):
    second = cli("daemon", "--vault", str(vault), timeout=60)
    assert second.returncode != 0
    assert f"pid {daemon.proc.pid}" in second.stderr and "already serves this vault" in second.stderr
    assert daemon.proc.poll() is None  # the first one is untouched
    assert json.loads(daemon.bridge.read_text(encoding="utf-8"))["pid"] == daemon.proc.pid


def test_cli_goes_through_the_running_daemon(daemon, vault, tmp_path):
    # the CLI gets a data dir it cannot use: it can only answer through the daemon
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("", encoding="utf-8")
    env = child_env(MNEMOVAULT_DATA_DIR=str(blocker / "data"))
    out = cli("touch", STAGING, "--vault", str(vault), "--json", env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 2
    assert daemon.get("/api/note", params={"path": STAGING}).json()["use_count"] == 2

    search = cli("search", "postgres", "--vault", str(vault), "--json", env=env)
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["results"][0]["path"] == STAGING

    err = cli("touch", "no-such-memory", "--vault", str(vault), env=env)
    assert err.returncode == 4 and "no note with id or path" in err.stderr

    # the same CLI without the daemon fails on that data dir: the answers above were the daemon's
    direct = cli("touch", STAGING, "--vault", str(vault), env={**env, "MNEMOVAULT_NO_DAEMON": "1"})
    assert direct.returncode != 0


def test_cli_works_directly_without_a_daemon(vault):
    env = child_env(MNEMOVAULT_NO_DAEMON="1")
    out = cli("touch", STAGING, "--vault", str(vault), "--json", env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 2
    assert "use_count: 2" in (vault / STAGING).read_text(encoding="utf-8")
    # and with no daemon at all (no bridge file), the same
    out = cli("touch", STAGING, "--vault", str(vault), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 3


def test_cli_ignores_a_stale_bridge_file(vault):
    from bridge.paths import bridge_file, private_write

    # a bridge file left by a daemon that died: pid of a finished process, a closed port
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    private_write(bridge_file(vault), json.dumps({"port": 9, "token": "x" * 40, "pid": dead.pid, "vault": str(vault)}))
    out = cli("touch", STAGING, "--vault", str(vault), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 2
