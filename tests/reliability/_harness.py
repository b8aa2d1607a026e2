"""Shared helpers of the reliability tests: a daemon subprocess with its own user dirs,
vault hashing, and an index-versus-rebuild comparison.

Every test file in this folder has a short form (default `pytest` run) and a long form:
set RELIABILITY_LONG=1 to run the long one by hand (not MNEMOVAULT_*: tests/conftest.py
clears every MNEMOVAULT_* variable so that a developer's settings never leak into tests).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("RELIABILITY_LONG", "") not in ("", "0", "false")


def scale(short, long):
    return long if LONG else short


def child_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment for a daemon whose config/data/log dirs all live under `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOVAULT_")}
    env.update({
        "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1",
        "MNEMOVAULT_CONFIG_DIR": str(home / "config"), "MNEMOVAULT_DATA_DIR": str(home / "data"),
        "MNEMOVAULT_LOG_DIR": str(home / "logs"), "MNEMOVAULT_EMBEDDINGS": "false",
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        "FASTMCP_SHOW_SERVER_BANNER": "false", "FASTMCP_CHECK_FOR_UPDATES": "off",
    })
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Daemon:
    """`python -m bridge.cli daemon --vault V` in a subprocess with its own user dirs."""

    def __init__(self, vault: Path, home: Path, **env):
        self.vault = vault
        self.home = home
        self.env = child_env(home, **env)
        self.proc: subprocess.Popen | None = None
        self.info: dict = {}
        self.out_path = home / "daemon.out"
        home.mkdir(parents=True, exist_ok=True)

    @property
    def bridge(self) -> Path:
        from bridge.paths import vault_key

        return self.home / "config" / "bridges" / f"{vault_key(self.vault)}.json"

    def start(self, timeout: float = 60) -> "Daemon":
        out = open(self.out_path, "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "bridge.cli", "daemon", "--vault", str(self.vault)],
                                     env=self.env, cwd=str(ROOT), stdout=out, stderr=subprocess.STDOUT)
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
        try:
            return self.out_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.info['port']}"

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.info['token']}"}

    @property
    def client(self) -> httpx.Client:
        """One keep-alive client per daemon run (a new one per request costs ~50 ms)."""
        c = getattr(self, "_client", None)
        if c is None or getattr(self, "_client_port", None) != self.info["port"]:
            c = self._client = httpx.Client(headers=self.headers)
            self._client_port = self.info["port"]
        return c

    def get(self, path: str, params: dict | None = None, timeout: float = 30) -> httpx.Response:
        return self.client.get(self.base + path, params=params, timeout=timeout)

    def post(self, path: str, body=None, timeout: float = 60, content: bytes | None = None) -> httpx.Response:
        if content is not None:
            return self.client.post(self.base + path, content=content, timeout=timeout)
        return self.client.post(self.base + path, json=body, timeout=timeout)

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

    def log_text(self) -> str:
        """The daemon's own log file (rotating; we read every part)."""
        folder = self.home / "logs"
        parts = sorted(folder.glob("mnemovault.log*"), reverse=True)
        return "".join(p.read_text(encoding="utf-8", errors="replace") for p in parts)


def vault_hashes(root: Path, skip=(".mnemovault/lease.json",)) -> dict[str, str]:
    """rel path -> sha256 of every file in the vault (symlinks: their target text)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if rel in skip:
                continue
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def index_equals_rebuild(vault: Path, index_path: Path) -> tuple[dict, dict]:
    """(the index as it is, a rebuild from scratch) as canonical dumps."""
    from vault_sync.index.store import IndexStore
    from vault_sync.index.sync import Indexer
    from vault_sync.vault import Layout

    live = IndexStore(index_path)
    try:
        got = live.canonical_dump()
    finally:
        live.close()
    fresh_path = index_path.with_name(index_path.name + ".rebuild")
    for suffix in ("", "-wal", "-shm"):
        Path(str(fresh_path) + suffix).unlink(missing_ok=True)
    fresh = IndexStore(fresh_path)
    try:
        Indexer(fresh, Layout(vault)).reconcile(rebuild=True)
        want = fresh.canonical_dump()
    finally:
        fresh.close()
    return got, want


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


def memory_ids(vault: Path) -> dict[str, list[str]]:
    """id -> paths of every memory note (STM, LTM, Archive) on disk."""
    from vault_sync.note import parse_note

    out: dict[str, list[str]] = {}
    for folder in ("STM", "LTM", "Archive"):
        for p in (vault / folder).rglob("*.md"):
            note = parse_note(p.name, p.read_bytes())
            if note.fields.id:
                out.setdefault(note.fields.id, []).append(p.relative_to(vault).as_posix())
    return out


def lease_held_elsewhere(vault: Path, device: str = "another-device", seconds: float = 86400 * 365) -> None:
    """A lease held by another device: this vault's daemon then runs no background writes."""
    from datetime import timedelta

    from vault_sync.dates import format_datetime, utc_now

    now = utc_now()
    (vault / ".mnemovault").mkdir(parents=True, exist_ok=True)
    (vault / ".mnemovault" / "lease.json").write_text(json.dumps({
        "device": device, "heartbeat": format_datetime(now), "expires": format_datetime(now + timedelta(seconds=seconds))}))
