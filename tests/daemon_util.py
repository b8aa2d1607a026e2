"""A real daemon in a subprocess with its own user dirs, and CLI subprocesses that talk to it.

Shared by tests/bridge/test_daemon.py, tests/bridge/test_http_bridge.py and tests/reliability/ (tests/ is
on sys.path there because of tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
USER_DIRS = {"MNEMOVAULT_CONFIG_DIR": "config", "MNEMOVAULT_DATA_DIR": "data", "MNEMOVAULT_LOG_DIR": "logs"}
# the scheduled lifecycle still sweeps scores, but moves nothing unless a test asks for it
QUIET_LIFECYCLE = {
    "MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS": "100000",
    "MNEMOVAULT_AUTO_PROMOTE": "false",
    "MNEMOVAULT_AUTO_GC": "false",
}


def child_env(home: Path | None = None, **extra) -> dict[str, str]:
    """An environment for a child process: config/data/log dirs under `home`, or (no home) the
    test's own isolated dirs (tests/conftest.py); no other MNEMOVAULT_* setting leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOVAULT_")}
    for key, sub in USER_DIRS.items():
        env[key] = str(home / sub) if home is not None else os.environ[key]
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
            "MNEMOVAULT_EMBEDDINGS": "false",
            "MNEMOVAULT_PROJECT": "",  # a CLI child's project: shared, not the repository folder's
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "FASTMCP_SHOW_SERVER_BANNER": "false",
            "FASTMCP_CHECK_FOR_UPDATES": "off",
        }
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


def cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """`python -m bridge.cli ARGS`; pass a daemon's `env` to reach that daemon."""
    return subprocess.run(
        [sys.executable, "-m", "bridge.cli", *args],
        env=env or child_env(),
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def wait_for(predicate, timeout: float = 15, step: float = 0.1):
    """Poll `predicate` until it returns something true or `timeout` passes; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)


def index_path_of(home: Path, vault: Path) -> Path:
    """Where a daemon with these user dirs keeps the vault's index."""
    old = os.environ.get("MNEMOVAULT_DATA_DIR")
    os.environ["MNEMOVAULT_DATA_DIR"] = str(home / "data")
    try:
        from vault_sync.settings import default_index_path

        return default_index_path(vault.resolve())
    finally:
        if old is None:
            os.environ.pop("MNEMOVAULT_DATA_DIR", None)
        else:
            os.environ["MNEMOVAULT_DATA_DIR"] = old


class Daemon:
    """`python -m bridge.cli daemon --vault V` in a subprocess with its own user dirs under
    `home`; `env` is its environment (give it to CLI subprocesses). Always `close()` it."""

    def __init__(self, vault: Path, home: Path, args: tuple[str, ...] = (), **env):
        self.vault = vault
        self.args = args  # more `daemon` options (e.g. --idle-exit)
        self.home = home
        self.env = child_env(home, **env)
        self.proc: subprocess.Popen | None = None
        self.info: dict = {}
        self.out_path = home / "daemon.out"
        self._client: httpx.Client | None = None
        home.mkdir(parents=True, exist_ok=True)

    @property
    def bridge(self) -> Path:
        from bridge.paths import vault_key

        return self.home / "config" / "bridges" / f"{vault_key(self.vault)}.json"

    @property
    def index_path(self) -> Path:
        return index_path_of(self.home, self.vault)

    def start(self, timeout: float = 60) -> "Daemon":
        out = open(self.out_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bridge.cli", "daemon", "--vault", str(self.vault), *self.args],
            env=self.env,
            cwd=str(ROOT),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        out.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"daemon exited with {self.proc.returncode}:\n{self.output()[-3000:]}")
            try:
                info = json.loads(self.bridge.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                info = {}
            if info.get("pid") == self.proc.pid:
                self.info = info
                try:
                    if self.get("/api/status", timeout=5).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
            time.sleep(0.1)
        raise AssertionError(f"daemon did not start in {timeout}s:\n{self.output()[-3000:]}")

    def output(self) -> str:
        """What the daemon wrote to stdout and stderr."""
        try:
            return self.out_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def log_text(self) -> str:
        """The daemon's own log file (rotating; we read every part)."""
        parts = sorted((self.home / "logs").glob("mnemovault.log*"), reverse=True)
        return "".join(p.read_text(encoding="utf-8", errors="replace") for p in parts)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.info['port']}"

    @property
    def auth(self) -> dict:
        return {"Authorization": f"Bearer {self.info['token']}"}

    @property
    def client(self) -> httpx.Client:
        """One keep-alive client per daemon run (a new one per request costs ~50 ms)."""
        c = self._client
        if c is None or c.is_closed or getattr(self, "_client_port", None) != self.info["port"]:
            if c is not None:
                c.close()
            c = self._client = httpx.Client(headers=self.auth)
            self._client_port = self.info["port"]
        return c

    def get(self, path: str, params: dict | None = None, timeout: float = 30, **kw) -> httpx.Response:
        return self.client.get(self.url + path, params=params, timeout=timeout, **kw)

    def post(self, path: str, body=None, timeout: float = 60, content: bytes | None = None, **kw) -> httpx.Response:
        if content is not None:
            return self.client.post(self.url + path, content=content, timeout=timeout, **kw)
        return self.client.post(self.url + path, json=body, timeout=timeout, **kw)

    def status(self) -> dict:
        r = self.get("/api/status")
        assert r.status_code == 200, r.text
        return r.json()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9: no cleanup at all."""
        if self.alive():
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 30) -> int | None:
        """SIGTERM; the exit code (SIGKILL after `timeout`)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    def close(self) -> None:
        """Kill the process if it still runs, close the HTTP client."""
        self.kill()
        if self._client is not None:
            self._client.close()
            self._client = None


def stop_started_daemon(home: Path, timeout: float = 60) -> None:
    """Stop a daemon a relay started (not our child): SIGTERM by the pid its bridge file names,
    or its early file while it still starts; wait until the process is gone."""
    bridges = home / "config" / "bridges"
    for path in [*bridges.glob("*.json"), *bridges.glob("*.early")]:
        try:
            pid = json.loads(path.read_text(encoding="utf-8"))["pid"]
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            continue
        wait_for(lambda pid=pid: not Path(f"/proc/{pid}").exists(), timeout=timeout)
