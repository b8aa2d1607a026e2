"""`mnemovault mcp`: relay MCP from stdio to the daemon's streamable-HTTP endpoint.

The daemon holds the one engine, watcher and model of the vault; each assistant session
only runs this relay. It forwards JSON-RPC messages unchanged, so every tool, resource and
prompt the daemon offers passes through without a change here. Standard library only:
importing fastmcp alone costs over a second, the engine and torch far more.

stdio side: one JSON-RPC message per line. HTTP side (MCP streamable HTTP): each message
is POSTed to /mcp with the bearer token and the Mcp-Session-Id; a request is answered with
one JSON body or an SSE stream (which may carry the server's own requests and notices
before the answer); notifications and responses get 202.

What the daemon sends outside any call (`notifications/resources/updated` when the review
queue changes) comes on the session's GET stream, which a listener thread relays to stdout.

If the daemon goes away: a request that was never sent (connection refused, or an unknown
session after a restart) is sent again once the relay has reconnected, restarting the
daemon if needed; a request in flight gets a JSON-RPC error answer at once."""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable
from urllib.parse import quote

from . import early_client, mcp_manifest
from .daemon_start import DaemonUnavailable, ensure_daemon
from .local_http import local_connection
from .paths import not_a_vault

Sink = Callable[[Any], None]  # takes each JSON-RPC message the daemon sends

PROXY_ERROR = -32000  # JSON-RPC "server error" range: the relay's own failures
ACCEPT = "application/json, text/event-stream"
# the newer protocol's discovery probe and its "use another version" error (mcp_types; not imported: see above)
UNSUPPORTED_PROTOCOL_VERSION = -32022
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"
HANDSHAKE_FALLBACK = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")  # without a manifest file


# the daemon's limit on a request body (vault_sync.limits.MAX_BODY_BYTES; the proxy must not
# import the engine, a test keeps the two equal)
MAX_BODY_BYTES = 4 * 1024 * 1024


class NotSent(Exception):
    """The request never reached a live session: safe to send again after reconnecting."""


class Lost(Exception):
    """The daemon went away while it had the request."""


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


PROJECT_HEADER = "Mnemovault-Project"  # bridge/mcp_project.py reads it: this session's project


class Relay:
    def __init__(self, vault: Path, out: BinaryIO, start_daemon: bool = True, project: str | None = None):
        self.vault = vault
        # `mcp --project NAME` ("" for shared): sent with every message, so this session keeps
        # its project on the daemon every session shares; None: the daemon asks the client's roots
        self.project = project
        self.out = out
        self.start_daemon = start_daemon
        # a tool call may run long (a full sync, consolidation); a dead daemon is noticed at
        # once anyway (the socket closes), this only bounds a daemon that hangs
        self.call_timeout = _env_float("MNEMOVAULT_MCP_CALL_TIMEOUT", 600.0)
        self.start_timeout = _env_float("MNEMOVAULT_MCP_START_TIMEOUT", 120.0)
        self.out_lock = threading.Lock()
        self.state_lock = threading.Lock()
        self.info: dict[str, Any] | None = None  # the daemon's bridge info
        self.session: str | None = None
        self.protocol: str | None = None
        self.init_params: dict[str, Any] | None = None  # the client's initialize, once the daemon accepted it
        self.generation = 0
        self.replays = 0
        self.workers: set[threading.Thread] = set()
        # set once the daemon runs or its process exists: a client that closes stdin right
        # after the manifest's answers must not take the daemon's start down with this process
        self.spawned = threading.Event()
        # set while no first connection is under way (serve() starts one, the normal path makes
        # the rest): a save goes to the early server only while the first one is (a daemon that
        # died later is started again by the normal path)
        self.first_connect = threading.Event()
        self.first_connect.set()
        self.closed = threading.Event()
        self.session_changed = threading.Event()  # the listener reopens its stream on the new session
        self.listener: threading.Thread | None = None
        # the daemon's own answers to initialize and the lists (bridge/mcp_manifest.py): the
        # client gets them at once while the daemon starts; init_lock orders that against _connect
        self.manifest = mcp_manifest.load()
        self.init_lock = threading.Lock()
        self.local_session = False  # initialize was answered here; the daemon's session follows
        self.drop_initialized = False  # _connect sends notifications/initialized for that session

    # --- stdout -------------------------------------------------------------------------
    def emit(self, message: Any) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self.out_lock:
            self.out.write(line)
            self.out.flush()

    def emit_error(self, req_id: Any, message: str) -> None:
        self.emit({"jsonrpc": "2.0", "id": req_id, "error": {"code": PROXY_ERROR, "message": message}})

    # --- HTTP side ----------------------------------------------------------------------
    def _headers(self, info: dict[str, Any], session: str | None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {info['token']}", "Content-Type": "application/json", "Accept": ACCEPT}
        if session:
            headers["Mcp-Session-Id"] = session
        if self.protocol:
            headers["MCP-Protocol-Version"] = self.protocol
        if self.project is not None:
            headers[PROJECT_HEADER] = quote(self.project, safe="")
        return headers

    def _post(
        self, info: dict[str, Any], session: str | None, message: Any, timeout: float
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        conn = local_connection(info["port"], timeout=timeout)
        try:
            conn.connect()
        except OSError as exc:
            conn.close()
            raise NotSent(str(exc)) from None
        try:
            conn.request("POST", "/mcp", json.dumps(message).encode("utf-8"), self._headers(info, session))
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise Lost(str(exc) or type(exc).__name__) from None
        if resp.status == 404 and session:  # a restarted daemon does not know our session
            resp.read()
            conn.close()
            raise NotSent("session unknown to the daemon")
        return conn, resp

    def _answers(self, resp: http.client.HTTPResponse, req_id: Any, sink: Sink) -> Any:
        """Pass every message of an answer to `sink`; the one answering `req_id`, if seen."""
        ctype = (resp.getheader("Content-Type") or "").lower()
        if "text/event-stream" not in ctype:
            body = resp.read()
            if not body.strip():
                return None
            message = json.loads(body)
            for m in message if isinstance(message, list) else [message]:
                sink(m)
                if _answers_id(m, req_id):
                    return m
            raise Lost("the daemon's answer was missing")
        data: list[str] = []
        while True:
            raw = resp.readline()
            if not raw:
                raise Lost("the answer stream ended early")
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif not line and data:
                message = json.loads("\n".join(data))
                data = []
                sink(message)
                if _answers_id(message, req_id):
                    return message

    def _exchange(
        self, info: dict[str, Any], session: str | None, message: dict[str, Any], timeout: float, sink: Sink
    ) -> tuple[Any, http.client.HTTPResponse]:
        """POST one message; (the answer to it or None, the response object)."""
        conn, resp = self._post(info, session, message, timeout)
        try:
            if resp.status >= 400:
                body = resp.read().decode("utf-8", errors="replace")
                if "id" not in message or "method" not in message:
                    return None, resp
                answer = {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {
                        "code": PROXY_ERROR,
                        "message": f"the mnemovault daemon answered HTTP {resp.status}: {_short(body)}",
                    },
                }
                sink(answer)
                return answer, resp
            if "id" not in message or "method" not in message:
                resp.read()
                return None, resp
            try:
                return self._answers(resp, message["id"], sink), resp
            except (OSError, http.client.HTTPException, ValueError) as exc:
                raise Lost(str(exc) or type(exc).__name__) from None
        finally:
            conn.close()

    # --- the session with the daemon ---------------------------------------------------
    def _connect(self) -> None:
        """Find (or start) the daemon and open an MCP session, replaying the client's
        initialize; called with state_lock held."""
        info = ensure_daemon(self.vault, self.start_timeout, start=self.start_daemon, on_spawn=self.spawned.set)
        self.spawned.set()
        with self.init_lock:
            self.info, self.session = info, None
            if self.init_params is None:
                return  # the client's own initialize opens the session
        self.replays += 1
        init = {
            "jsonrpc": "2.0",
            "id": f"mnemovault-proxy-{self.replays}",
            "method": "initialize",
            "params": self.init_params,
        }
        answer, resp = self._exchange(info, None, init, 30.0, lambda m: None)
        if answer is None or "error" in answer:
            raise Lost(f"the daemon refused a new session: {answer}")
        self.session = resp.getheader("Mcp-Session-Id")
        self._exchange(
            info, self.session, {"jsonrpc": "2.0", "method": "notifications/initialized"}, 30.0, lambda m: None
        )
        self.session_changed.set()

    def _current(self) -> tuple[dict[str, Any], str | None, int]:
        with self.state_lock:
            if self.info is None:
                self._connect()
            assert self.info is not None  # _connect sets it or raises
            return self.info, self.session, self.generation

    def _drop(self, generation: int) -> None:
        """Forget a session that failed (once, however many threads saw it fail)."""
        with self.state_lock:
            if self.generation == generation:
                self.generation += 1
                self.info = None
                self.session = None

    def send(self, message: dict[str, Any]) -> None:
        """Relay one message from the client and write whatever the daemon answers."""
        req_id = message.get("id")
        is_request = "method" in message and "id" in message
        size = len(json.dumps(message).encode("utf-8"))
        if size > MAX_BODY_BYTES:  # the daemon would refuse it mid-upload: say why, keep the session
            if is_request:
                self.emit_error(
                    req_id,
                    f"this message is too large for mnemovault ({size:,} bytes; the limit is "
                    f"{MAX_BODY_BYTES // (1024 * 1024)} MiB): save a long text as a note, "
                    f"or split the batch",
                )
            return
        if self._early_save(message):
            return
        for _ in range(3):
            try:
                info, session, generation = self._current()
            except (DaemonUnavailable, NotSent, Lost) as exc:
                if is_request:
                    self.emit_error(req_id, f"mnemovault daemon unavailable: {exc}")
                return
            try:
                answer, resp = self._exchange(info, session, message, self.call_timeout, self.emit)
            except NotSent:
                self._drop(generation)
                continue
            except Lost as exc:
                self._drop(generation)
                if is_request:
                    self.emit_error(
                        req_id,
                        f"the mnemovault daemon stopped during this call ({exc}); "
                        "the next call reconnects (restarting it if needed): try again",
                    )
                return
            if message.get("method") == "initialize" and answer is not None and "result" in answer:
                with self.state_lock:
                    self.session = resp.getheader("Mcp-Session-Id")
                    self.protocol = answer["result"].get("protocolVersion") or self.protocol
                    self.init_params = message.get("params") or {}  # replayed on reconnect
            elif message.get("method") == "notifications/initialized":
                self.session_changed.set()  # the server may speak on its own from now on
            return
        if is_request:
            self.emit_error(req_id, "could not reach the mnemovault daemon after reconnecting")

    # --- a first save while the daemon starts -------------------------------------------
    def _early_save(self, message: dict[str, Any]) -> bool:
        """A save_memory at the session's start, before the daemon's MCP app serves, answered
        by its early save server (bridge/early_client.py): True once answered."""
        request = early_client.request_of(message, self.project, self.init_params) if self.local_session else None
        if request is None:
            return False
        answer = early_client.ask(self.vault, request, self._started, self.start_timeout, self.call_timeout)
        if answer is None:
            return False
        self.emit({"jsonrpc": "2.0", "id": message["id"], **answer})
        return True

    def _started(self) -> bool:
        return self.info is not None or self.closed.is_set() or self.first_connect.is_set()

    def _send_tracked(self, message: dict[str, Any]) -> None:
        try:
            self.send(message)
        finally:
            self.workers.discard(threading.current_thread())

    # --- what the daemon sends outside calls --------------------------------------------
    def listen(self) -> None:
        """Keep the current session's GET stream open and relay what comes on it."""
        while not self.closed.is_set():
            self.session_changed.wait()
            self.session_changed.clear()
            with self.state_lock:
                info, session = self.info, self.session
            while info and session and not self.closed.is_set():
                if not self._stream(info, session):
                    break  # the session is gone or has no stream: wait for the next one
                with self.state_lock:  # the stream ended: reopen it unless the session changed
                    if (self.info, self.session) != (info, session):
                        break
                self.closed.wait(0.5)

    def _stream(self, info: dict[str, Any], session: str) -> bool:
        """Relay one GET stream until it ends; False when the daemon will not give one."""
        conn = local_connection(info["port"], timeout=None)  # a stream waits as long as it must
        headers = self._headers(info, session)
        headers["Accept"] = "text/event-stream"
        headers.pop("Content-Type", None)
        try:
            conn.request("GET", "/mcp", headers=headers)
            resp = conn.getresponse()
            if resp.status != 200 or "text/event-stream" not in (resp.getheader("Content-Type") or "").lower():
                resp.read()
                return resp.status == 409  # 409: another stream for this session still closing
            data: list[str] = []
            while not self.closed.is_set():
                raw = resp.readline()
                if not raw:
                    return True
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif not line and data:
                    try:
                        self.emit(json.loads("\n".join(data)))
                    except ValueError:
                        pass  # not JSON-RPC: nothing a client could use
                    data = []
            return True
        except (OSError, http.client.HTTPException):
            return True  # the daemon went away; try again while this is still the session
        finally:
            conn.close()

    def close(self) -> None:
        """End the daemon-side session (best effort, quickly)."""
        self.closed.set()
        self.session_changed.set()
        info, session = self.info, self.session
        if not info or not session:
            return
        conn = local_connection(info["port"], timeout=2)
        try:
            conn.request("DELETE", "/mcp", headers=self._headers(info, session))
            conn.getresponse().read()
        except (OSError, http.client.HTTPException):
            pass
        finally:
            conn.close()

    # --- stdin side ---------------------------------------------------------------------
    def serve(self, stdin: BinaryIO) -> None:
        self.listener = threading.Thread(target=self.listen, name="mnemovault-mcp-listen", daemon=True)
        self.listener.start()
        # find (or start) the daemon while the client is still starting, without holding up stdin
        self.first_connect.clear()
        threading.Thread(target=self._connect_early, name="mnemovault-mcp-connect", daemon=True).start()
        for raw in stdin:
            if not raw.strip():
                continue
            try:
                message = json.loads(raw)
            except ValueError:
                self.emit({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error: not JSON"}})
                continue
            for m in message if isinstance(message, list) else [message]:
                self.dispatch(m)
        # stdin closed: let calls already sent write their answers, for a short while
        deadline = time.monotonic() + 5.0
        for worker in list(self.workers):
            worker.join(max(0.0, deadline - time.monotonic()))
        self.spawned.wait(10.0)
        self.close()

    def _connect_early(self) -> None:
        try:
            self._current()
        except (DaemonUnavailable, NotSent, Lost) as exc:
            print(f"mnemovault mcp: {exc}", file=sys.stderr, flush=True)
        finally:
            self.spawned.set()
            self.first_connect.set()

    def _answered_here(self, message: dict[str, Any]) -> bool:
        """initialize, ping and the lists answered from the manifest while no daemon session exists."""
        method = message.get("method")
        if self.manifest is None or "id" not in message:
            return False
        with self.init_lock:
            if self.info is not None:
                return False  # connected: the daemon answers
            if method == "initialize":
                params = message.get("params")
                params = params if isinstance(params, dict) else {}
                result = mcp_manifest.initialize_result(self.manifest, params.get("protocolVersion"))
                self.init_params = params  # _connect replays it to open the daemon's session
                self.protocol = result.get("protocolVersion") or self.protocol
                self.local_session = self.drop_initialized = True
            elif method in mcp_manifest.LISTS and method in self.manifest and self.local_session:
                result = self.manifest[method]
            elif method == "ping":
                result = {}
            else:
                return False
        self.emit({"jsonrpc": "2.0", "id": message["id"], "result": result})
        return True

    def _refuse_discover(self, message: dict[str, Any]) -> None:
        """The newer protocol's `server/discover` probe, answered here at once: this relay keeps
        one daemon session per client (the initialize handshake's era), so the answer names the
        handshake versions and clients send `initialize` next (forwarded, it waited and failed)."""
        if "id" not in message:
            return
        meta = (message.get("params") or {}).get("_meta") if isinstance(message.get("params"), dict) else None
        requested = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
        supported = mcp_manifest.handshake_versions(self.manifest) if self.manifest else list(HANDSHAKE_FALLBACK)
        error = {
            "code": UNSUPPORTED_PROTOCOL_VERSION,
            "message": "mnemovault speaks the initialize handshake: send initialize with one of these versions",
            "data": {"supported": supported, "requested": requested if isinstance(requested, str) else ""},
        }
        self.emit({"jsonrpc": "2.0", "id": message["id"], "error": error})

    def dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            self.emit({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}})
            return
        if message.get("method") == "server/discover":
            self._refuse_discover(message)
            return
        if message.get("method") in ("initialize", "ping", *mcp_manifest.LISTS) and self._answered_here(message):
            return
        if message.get("method") == "notifications/initialized" and self.drop_initialized:
            self.drop_initialized = False  # the replayed initialize sent its own
            return
        if message.get("method") == "initialize":
            self.send(message)  # in order: nothing else may reach the daemon before it
        elif "method" in message and "id" in message:
            # requests run side by side: a long tool call must not hold up a ping or a cancel
            worker = threading.Thread(target=self._send_tracked, args=(message,), daemon=True)
            self.workers.add(worker)
            worker.start()
        else:
            self.send(message)  # notifications and our answers to the daemon, in order


def _answers_id(message: Any, req_id: Any) -> bool:
    return isinstance(message, dict) and message.get("id") == req_id and ("result" in message or "error" in message)


def _short(text: str) -> str:
    try:
        err = json.loads(text)
        text = (err.get("error") or {}).get("message") or text if isinstance(err, dict) else text
    except ValueError:
        pass
    return str(text)[:300]


def run_proxy(vault: Path | str, project: str | None = None) -> None:
    vault = Path(vault).expanduser().resolve()
    problem = not_a_vault(vault)
    if problem:  # before any daemon, lease or index: nothing is written for a wrong folder
        print(f"mnemovault mcp: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(2)
    relay = Relay(vault, sys.stdout.buffer, project=project)
    try:
        relay.serve(sys.stdin.buffer)
    finally:
        report = os.environ.get("MNEMOVAULT_MCP_PROXY_MODULES")
        if report:  # for the tests: which modules did this process load?
            Path(report).write_text(json.dumps(sorted(sys.modules)), encoding="utf-8")
