"""The daemon process: one per vault. Live sync, the lifecycle on a schedule, embedding
backfill, and the HTTP bridge with MCP at /mcp, on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from vault_sync.dates import format_datetime, utc_now
from vault_sync.errors import MnemovaultError, SettingsError
from vault_sync.limits import quote
from vault_sync.settings import load_settings

from .context import open_service
from .early_server import EarlyServer
from .paths import bridge_file, config_dir, device_token, log_dir, private_dir, private_write
from .vault_lock import LockHeld, VaultLock
from .version import version

if TYPE_CHECKING:
    import uvicorn
    from fastmcp import FastMCP

    from vault_sync.service import MemoryService

    from .http_app import Activity

log = logging.getLogger("mnemovault.daemon")


class AlreadyRunning(MnemovaultError):
    code = "already_running"


def setup_logging(verbose: bool = False) -> Path:
    folder = log_dir()
    if not folder.exists():  # the log names notes and paths: only the user reads it
        folder.mkdir(parents=True, mode=0o700)
    path = folder / "mnemovault.log"
    root = logging.getLogger("mnemovault")
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    if not root.handlers:
        fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
        file_handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
        file_handler.setFormatter(fmt)
        stderr = logging.StreamHandler(sys.stderr)
        stderr.setFormatter(fmt)
        root.addHandler(file_handler)
        root.addHandler(stderr)
    return path


@dataclass
class Worker:
    """A background loop that runs `job` every `interval` seconds or when poked."""

    name: str
    interval: float
    job: Callable[[], object]
    on_error: Callable[[Exception], object] | None = None  # called with the exception of a failed run

    def __post_init__(self) -> None:
        self.stop_event = threading.Event()
        self.poke_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)

    def start(self, first_delay: float = 0.0) -> None:
        self.first_delay = first_delay
        self.thread.start()

    def poke(self) -> None:
        self.poke_event.set()

    def stop(self, timeout: float = 30.0) -> None:
        self.stop_event.set()
        self.poke_event.set()
        if self.thread.ident is not None:  # started (a daemon stopped early may never start it)
            self.thread.join(timeout)

    def _run(self) -> None:
        if self.stop_event.wait(self.first_delay):
            return
        while not self.stop_event.is_set():
            try:
                self.job()
            except Exception as exc:  # noqa: BLE001 - a failed run is logged and recorded; the daemon keeps going
                log.exception("%s failed", self.name)
                if self.on_error is not None:
                    try:
                        self.on_error(exc)
                    except Exception:  # noqa: BLE001 - recording must not end the loop
                        log.exception("%s: could not record the failure", self.name)
            self.poke_event.wait(self.interval)
            self.poke_event.clear()


def env_port() -> int:
    """MNEMOVAULT_PORT, checked: a clear error instead of a traceback from bind()."""
    raw = os.environ.get("MNEMOVAULT_PORT", "").strip() or "0"
    if not raw.isdigit() or len(raw) > 5 or int(raw) > 65535:
        raise SettingsError(f"MNEMOVAULT_PORT must be a port number 1-65535 (or 0 for a free one); got {quote(raw)}")
    return int(raw)


def serve(vault: Path | None, port: int | None = None, verbose: bool = False, idle_exit: float = 0.0) -> None:
    """`idle_exit` > 0: stop after that many seconds with no client (the daemon a relay starts)."""
    if port is not None and not 0 < port <= 65535:  # the CLI checks too; this is for other callers
        raise SettingsError(f"the port must be 1-65535; got {quote(port)}")
    env_port()
    log_path = setup_logging(verbose)
    private_dir(config_dir())  # the first thing a daemon creates in the config folder
    root = load_settings(vault=vault).vault_path()
    lock = hold_vault(root, str(bridge_file(root)))
    try:  # the index is opened only once the vault is ours
        with open_service(vault, initial_sync=False) as svc:
            _serve(svc, port, log_path, lock, idle_exit)
    finally:
        lock.release()


def hold_vault(root: Path, bridge: str | None, hint: str = "") -> VaultLock:
    """The vault's daemon lock, for a process that runs the engine and its watcher on it (the
    daemon, `mcp --in-process`). In the vault, not the config folder: a second config folder
    must not mean a second engine writing the same notes."""
    lock = VaultLock(root)
    try:
        lock.acquire(
            {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "config": str(config_dir()),
                "bridge": bridge,
                "started": format_datetime(utc_now()),
            }
        )
    except LockHeld as exc:
        raise AlreadyRunning(f"{exc}{hint}") from None
    return lock


def _serve(svc: MemoryService, port: int | None, log_path: Path, lock: VaultLock, idle_exit: float = 0.0) -> None:
    for line in svc.recover():
        log.warning("journal: %s", line)
    svc.check_index("found when the daemon started")  # the full check; opening checked what is cheap
    report = svc.sync()
    log.info(
        "indexed %s in %.2fs (%d added, %d updated, %d removed)",
        svc.layout.root,
        report["seconds"],
        report["added"],
        report["updated"],
        report["removed"],
    )
    # a stop asked for before uvicorn serves (it has its own handlers while it does) is kept
    # for it; uvicorn re-raises the signal it caught once it has stopped, harmless with these
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    token = device_token()
    # the engine is ready: a relay's first save is answered from here while the MCP app starts
    early = EarlyServer(svc, token, svc.layout.root)
    early.start()
    early.give_way()
    try:
        # after the first save: the watcher and the lease are not needed for it, and a sync
        # once the watcher runs takes in what changed since the one above
        svc.start_watcher()
        svc.sync()
        svc.runtime.hold_lease(config_dir(), version=version())
        _serve_all(svc, port, log_path, lock, idle_exit, token, early, stopping)
    finally:
        early.close()


def _serve_all(
    svc: MemoryService,
    port: int | None,
    log_path: Path,
    lock: VaultLock,
    idle_exit: float,
    token: str,
    early: EarlyServer,
    stopping: threading.Event,
) -> None:
    import asyncio

    import uvicorn

    from .http_app import Activity, build_app
    from .mcp_notify import notify_review_changes
    from .mcp_server import build_mcp

    lifecycle = Worker(
        "mnemovault-lifecycle",
        min(svc.settings.lifecycle_interval_seconds, svc.settings.lease_seconds / 3),
        lambda: _lifecycle(svc),
        on_error=lambda exc: svc.background_failed("lifecycle", exc),
    )
    lifecycle.start(first_delay=min(10.0, svc.settings.lifecycle_interval_seconds))
    # a conflict copy of mnemovault's own making is merged when it appears, not at the next run
    svc.subscribe(lambda kind, _data: lifecycle.poke() if kind == "conflict_copy" else None)
    embedder = None
    if svc.settings.embeddings:
        embedder = Worker(
            "mnemovault-embed",
            300.0,
            lambda: _embed(svc),
            on_error=lambda exc: svc.background_failed("embeddings", exc),
        )

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port or env_port()))
    sock.listen(128)  # a client that read the bridge file connects at once, even before uvicorn accepts
    bound = sock.getsockname()[1]
    started = format_datetime(utc_now())
    state = {"pid": os.getpid(), "started": started}
    mcp = build_mcp(lambda: svc)
    notify_review_changes(mcp, svc)  # sessions hear of review queue changes outside calls
    mcp_app = mcp.http_app(path="/mcp")
    activity = Activity()
    app = build_app(svc, token, lambda: bound, mcp_app=mcp_app, state=state, activity=activity)
    info = {
        "port": bound,
        "token": token,
        "pid": os.getpid(),
        "vault": str(svc.layout.root),
        "version": 1,
        "started": started,
        "log": str(log_path),
    }
    bfile = bridge_file(svc.layout.root)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=3)
    )
    try:
        _first_mcp_call(mcp)  # before the bridge file names this daemon: clients find it warm
        if embedder is not None:
            _start_model_load(svc)  # before any request: none may find the model unloaded and load it itself
        private_write(bfile, json.dumps(info, indent=2))
        lock.update({"port": bound})
        log.info("serving %s on 127.0.0.1:%d (bridge file %s)", svc.layout.root, bound, bfile)
        threading.Thread(
            target=_stop_when,
            args=(svc.layout.root, server, activity, idle_exit, stopping),
            name="mnemovault-idle",
            daemon=True,
        ).start()
        threading.Thread(target=_close_when_serving, args=(server, early), name="mnemovault-early", daemon=True).start()
        if embedder is not None:
            threading.Thread(
                target=_warm_when_serving, args=(svc, server, embedder), name="mnemovault-warm", daemon=True
            ).start()
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        log.info("stopping: finishing the write in progress")
        _remove_if_ours(bfile)
        lifecycle.stop()
        svc.runtime.release_lease()
        if embedder is not None:
            embedder.stop(timeout=5)
        svc.runtime.stop_watcher()
        with svc.write_lock:  # wait for an operation still writing
            pass
        log.info("stopped cleanly")


def _stop_when(
    root: Path, server: uvicorn.Server, activity: Activity, idle_exit: float, stopping: threading.Event
) -> None:
    """Stop the server when asked before it served, when the vault folder is gone (nothing may
    re-create it), or after `idle_exit` seconds with no request open (0: never)."""
    step = min(1.0, idle_exit / 4) if idle_exit > 0 else 1.0
    while not server.started and not server.should_exit:
        if stopping.is_set():
            server.should_exit = True
            return
        time.sleep(0.05)
    if stopping.is_set():
        server.should_exit = True
        return
    activity.restart()
    while not server.should_exit:
        if not root.is_dir():
            log.warning("the vault folder %s is gone: stopping", root)
            server.should_exit = True
            return
        if idle_exit > 0 and activity.idle_seconds() >= idle_exit:
            log.info("no client for %.0fs: stopping", idle_exit)
            server.should_exit = True
            return
        time.sleep(step)


def _close_when_serving(server: uvicorn.Server, early: EarlyServer) -> None:
    """The early save server ends once the MCP app serves (relays use the bridge file then)."""
    while not server.started and not server.should_exit:
        time.sleep(0.05)
    early.close()


def _start_model_load(svc: MemoryService) -> None:
    """Start loading the model in a background thread before the daemon accepts a request.
    Until it is in, search answers from full text and a save skips the vector checks; no
    request thread ever loads it (vault_sync.search.model.embedder_now)."""
    if svc.warm_model(torch_threads=1) is not None:  # one torch thread: see Embedder.start_loading
        log.info("embedding model: loading in the background")


def _warm_when_serving(svc: MemoryService, server: uvicorn.Server, embedder: Worker) -> None:
    """Start the backfill once the server answers: its first round would slow the start."""
    while not server.started:
        if server.should_exit:
            return
        time.sleep(0.05)
    svc.subscribe(lambda kind, data: embedder.poke() if kind == "indexed" else None)
    embedder.start(first_delay=0.5)


def _first_mcp_call(mcp: FastMCP[Any]) -> None:
    """One in-process tool call: the first of a process imports a good part of fastmcp and
    the engine's paths (0.3-1 s that no client's first call should wait for)."""
    import asyncio

    from fastmcp import Client

    async def call() -> None:
        async with Client(mcp) as client:
            await client.call_tool("status", {})

    try:
        asyncio.run(call())
    except Exception:  # noqa: BLE001 - a warm-up only
        log.debug("MCP warm-up failed", exc_info=True)


def _remove_if_ours(bfile: Path) -> None:
    try:
        if json.loads(bfile.read_text(encoding="utf-8")).get("pid") == os.getpid():
            bfile.unlink()
    except (OSError, ValueError):
        pass


def _lifecycle(svc: MemoryService) -> None:
    if svc.lease is None:  # _serve holds it before the first round
        raise RuntimeError("the daemon holds no background-writes lease")
    state = svc.lease.acquire()
    if not state.held:
        log.info("background writes left to device %s (lease until %s)", state.holder, state.expires)
        return
    if not svc.runtime.lifecycle_due():
        svc.settle_conflicts()  # poked by a new conflict copy (each merge is logged by the engine)
        return  # this round only renewed the lease
    started = time.perf_counter()
    report = svc.run_lifecycle()
    moves = [("promoted", m) for m in report.get("promote", {}).get("promoted", [])]
    moves += [("archived", m) for m in report.get("gc", {}).get("archived", [])]
    for what, m in moves:  # every move the engine makes on its own is in the log
        log.info("%s %s -> %s (id %s): %s", what, m["from"], m["to"], m["id"], m["reason"])
    moved = len(moves)
    written = report["sweep"]["written"]
    if moved or written:
        log.info("lifecycle: %d scores written, %d moved (%.2fs)", written, moved, time.perf_counter() - started)
    problem = svc.background_ran("lifecycle", report)
    if problem:
        log.warning("lifecycle: %s", problem)


def _embed(svc: MemoryService) -> None:
    try:
        svc.embed()
    except ImportError as exc:
        log.warning("embeddings unavailable: %s", exc)
        return
    svc.background_ran("embeddings")
