"""MCP session figures: `mnemovault mcp` as a whole process against a warm daemon it did not
start (the proxy), next to the same session served in-process (the old way, the floor to beat).

The client here is a bare JSON-lines writer, so the figures are the server process's own."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ..paths import import_root, module
from .stats import pct

ROOT = import_root()


class Session:
    """One `mnemovault mcp` process spoken to over its stdin/stdout."""

    def __init__(self, args: list[str], env: dict[str, Any], timeout: float = 300.0):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module("bridge.cli"), "mcp", *args],
            env=env,
            cwd=str(ROOT),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.timeout = timeout
        self.next_id = 0
        self.timer = threading.Timer(timeout, self.proc.kill)  # a stuck server must not stall the bench
        self.timer.start()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"`mnemovault mcp` ended before answering {method}")
            message = json.loads(line)
            if message.get("id") == self.next_id and ("result" in message or "error" in message):
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result = message["result"]
                if not isinstance(result, dict):
                    raise RuntimeError(f"{method}: the result is not an object: {result!r}")
                return result

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def peak_rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def close(self) -> None:
        self.timer.cancel()
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def bench_env(config: Path, data: Path, logs: Path, embeddings: bool) -> dict[str, str]:
    """A daemon's environment for a measurement: its own folders, no lifecycle job running
    during the run, quiet fastmcp, this checkout's code, and a daemon allowed to start."""
    env = dict(
        os.environ,
        MNEMOVAULT_CONFIG_DIR=str(config),
        MNEMOVAULT_DATA_DIR=str(data),
        MNEMOVAULT_LOG_DIR=str(logs),
        MNEMOVAULT_EMBEDDINGS="true" if embeddings else "false",
        MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS="100000",
        MNEMOVAULT_AUTO_PROMOTE="false",
        MNEMOVAULT_AUTO_GC="false",
        FASTMCP_SHOW_SERVER_BANNER="false",
        FASTMCP_CHECK_FOR_UPDATES="off",
        PYTHONPATH=str(ROOT),
    )
    env.pop("MNEMOVAULT_NO_DAEMON", None)
    return env


def one_session(args: list[str], env: dict[str, Any], query: str) -> dict[str, Any]:
    """Start to an answered tools/list, then the first search_memory of the process."""
    s = Session(args, env)
    try:
        s.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mnemovault-bench", "version": "1"},
            },
        )
        s.notify("notifications/initialized")
        tools = s.request("tools/list")["tools"]
        listed = time.perf_counter() - s.started
        t = time.perf_counter()
        result = s.request("tools/call", {"name": "search_memory", "arguments": {"query": query, "limit": 10}})
        search = time.perf_counter() - t
        if result.get("isError"):
            raise RuntimeError(f"search_memory failed: {result.get('content')}")
        return {"tools": len(tools), "list_s": listed, "search_s": search, "rss_mb": s.peak_rss_mb()}
    finally:
        s.close()


def daemon_search(work: Path, query: str) -> float:
    """One search_memory-equivalent request straight to the daemon's /api/rpc (no MCP)."""
    from ..local_http import local_connection

    info = json.loads(next((work / "mcp-config" / "bridges").glob("*.json")).read_text(encoding="utf-8"))
    conn = local_connection(info["port"], timeout=300)
    try:
        t = time.perf_counter()
        conn.request(
            "POST",
            "/api/rpc",
            json.dumps({"op": "search", "args": {"query": query, "limit": 10}}),
            {"Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"},
        )
        resp = conn.getresponse()
        resp.read()
        took = time.perf_counter() - t
        if resp.status != 200:
            raise RuntimeError(f"daemon search answered {resp.status}")
        return took
    finally:
        conn.close()


def mcp_timing(
    vault: Path,
    work: Path,
    queries: list[str],
    progress: Callable[[str], None],
    embeddings: bool,
    index: Path | None = None,
    runs: int = 7,
) -> dict[str, Any]:
    """Proxy sessions against a warm daemon on the bench vault; one in-process session to compare."""
    env = bench_env(work / "mcp-config", work / "mcp-data", work / "mcp-logs", embeddings)
    if index is not None:  # an index the bench already embedded: the daemon starts warm
        env["MNEMOVAULT_INDEX_PATH"] = str(index)
    queries = queries or ["postgres"]
    progress("MCP: starting a daemon for the proxy")
    daemon = subprocess.Popen(
        [sys.executable, "-m", module("bridge.cli"), "daemon", "--vault", str(vault)],
        env=env,
        cwd=str(ROOT),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not list((work / "mcp-config" / "bridges").glob("*.json")):
            if daemon.poll() is not None:
                raise RuntimeError(f"the bench daemon exited with {daemon.returncode}")
            time.sleep(0.1)
        # the first session after the daemon came up: the model is still loading in the background
        # (a search never waits for torch), so this search answers from full text
        first = one_session(["--vault", str(vault)], env, queries[0])
        progress(f"MCP: {runs} proxy sessions")
        sessions = [one_session(["--vault", str(vault)], env, queries[(i + 1) % len(queries)]) for i in range(runs)]
        progress("MCP: the same searches over the daemon's HTTP API (the floor)")
        direct = [daemon_search(work, queries[(i + 1) % len(queries)]) for i in range(runs)]
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            daemon.kill()
    progress("MCP: one in-process session (the old way)")
    inproc = one_session(["--in-process", "--vault", str(vault)], env, queries[0])
    lists = [s["list_s"] for s in sessions]
    searches = [s["search_s"] for s in sessions]
    return {
        "runs": runs,
        "tools": sessions[0]["tools"],
        "semantic": embeddings,
        "proxy_list_s": statistics.median(lists),
        "proxy_list_max_s": max(lists),
        "proxy_search_p50_ms": pct(searches, 0.5) * 1000,
        "proxy_search_max_ms": max(searches) * 1000,
        "proxy_rss_mb": max(s["rss_mb"] for s in sessions),
        "daemon_search_p50_ms": pct(direct, 0.5) * 1000,
        "in_process_list_s": inproc["list_s"],
        "in_process_search_ms": inproc["search_s"] * 1000,
        "in_process_rss_mb": inproc["rss_mb"],
        "first_after_daemon_start_search_ms": first["search_s"] * 1000,
    }


def _stop_daemon_of(config: Path, timeout: float = 60.0) -> None:
    """SIGTERM the daemon whose bridge file is under `config` and wait until it has exited."""
    import signal

    for bfile in (config / "bridges").glob("*.json"):
        try:
            pid = int(json.loads(bfile.read_text(encoding="utf-8"))["pid"])
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            continue
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.05)


def _wait_serving(config: Path, relay: subprocess.Popen[bytes], timeout: float = 300.0) -> None:
    """Until the daemon the relay started listens (its bridge file names a port that accepts)."""
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and relay.poll() is None:
        for bfile in (config / "bridges").glob("*.json"):
            try:
                socket.create_connection(
                    ("127.0.0.1", json.loads(bfile.read_text(encoding="utf-8"))["port"]), 1
                ).close()
                return
            except (OSError, ValueError, KeyError):
                pass
        time.sleep(0.05)
    raise RuntimeError("the daemon the relay started never listened")


def cold_start(
    vault: Path, work: Path, index: Path, progress: Callable[[str], None], embeddings: bool, runs: int = 3
) -> dict[str, Any]:
    """A relay with no daemon running: start to an answered tools/list (the relay starts the
    daemon), then, once that daemon listens, the first save_memory, which must not wait for the
    model the daemon is still loading. Each run has its own config folder and a copy of an indexed index, as after a
    login."""
    lists, saves, loading, first_calls, floors = [], [], [], [], []
    for i in range(runs):
        floors.append(python_start())
        first_calls.append(first_call_save(vault, work / f"first-call-{i}", index, embeddings, i))
        home = work / f"cold-start-{i}"
        progress(f"MCP: cold start {i + 1}/{runs} (the relay starts the daemon)")
        s = _cold_session(vault, home, index, embeddings)
        try:
            lists.append(time.perf_counter() - s.started)
            _wait_serving(home / "config", s.proc)  # the first save after the daemon is up, as a client meets it
            text = f"Cold start check {i}: the bench saved this memory right after the daemon started ({os.getpid()})."
            t = time.perf_counter()
            result = s.request("tools/call", {"name": "save_memory", "arguments": {"text": text}})
            saves.append(time.perf_counter() - t)
            if result.get("isError"):
                raise RuntimeError(f"save_memory failed: {result.get('content')}")
            found = s.request(
                "tools/call", {"name": "search_memory", "arguments": {"query": "cold start check", "limit": 3}}
            )
            loading.append(json.dumps(found).find("still loading") >= 0)
        finally:
            s.close()
            _stop_daemon_of(home / "config")
    return {
        "runs": runs,
        "semantic": embeddings,
        "list_s": statistics.median(lists),
        "list_max_s": max(lists),
        "first_save_ms": statistics.median(saves) * 1000,
        "first_save_max_ms": max(saves) * 1000,
        "model_still_loading": sum(loading),
        # a save as the session's first call, sent at once after tools/list: it waits for the
        # daemon's whole start (issue 41 asks < 1 s); the floor is a bare `python -c pass`
        "first_call_save_ms": statistics.median(first_calls) * 1000,
        "first_call_save_max_ms": max(first_calls) * 1000,
        "python_start_ms": statistics.median(floors) * 1000,
        "first_call_save_ratio_to_python_start": statistics.median(first_calls) / statistics.median(floors),
    }


def _cold_session(vault: Path, home: Path, index: Path, embeddings: bool) -> Session:
    """A relay started with no daemon running (its own config folder and a copy of an indexed
    index, as after a login), answered up to tools/list: the relay starts the daemon."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(index, home / "index.sqlite3")
    env = bench_env(home / "config", home / "data", home / "logs", embeddings)
    env["MNEMOVAULT_INDEX_PATH"] = str(home / "index.sqlite3")
    s = Session(["--vault", str(vault)], env)
    try:
        s.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mnemovault-bench", "version": "1"},
            },
        )
        s.notify("notifications/initialized")
        s.request("tools/list")
    except BaseException:
        s.close()
        _stop_daemon_of(home / "config")
        raise
    return s


def python_start() -> float:
    """The floor: starting and ending a bare interpreter."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t


def first_call_save(vault: Path, home: Path, index: Path, embeddings: bool, i: int) -> float:
    """A relay with no daemon running; save_memory as the first call, sent as soon as tools/list
    answers (not waiting for the daemon): seconds from the request to its answer."""
    s = _cold_session(vault, home, index, embeddings)
    try:
        text = f"First call check {i}: the bench saved this before the daemon was up ({os.getpid()})."
        t = time.perf_counter()
        result = s.request("tools/call", {"name": "save_memory", "arguments": {"text": text}})
        took = time.perf_counter() - t
        if result.get("isError"):
            raise RuntimeError(f"save_memory as the first call failed: {result.get('content')}")
        _wait_serving(home / "config", s.proc)  # answered before the daemon served: stop it once it does
        return took
    finally:
        s.close()
        _stop_daemon_of(home / "config")
