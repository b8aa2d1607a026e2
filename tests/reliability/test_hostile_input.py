"""Hostile input against a real daemon: bad notes on disk, bad refs and paths in every HTTP
endpoint and MCP tool argument that takes one, secrets and bad texts through save (MCP and
HTTP), malformed requests. Each gets a clear error, the daemon stays up, no file changes
(the vault is hashed before and after).

Short form (default run): every corpus case once. Long form, by hand:
    RELIABILITY_LONG=1 .venv/bin/python -m pytest tests/reliability/test_hostile_input.py -q
also repeats the ref corpus over the CLI (through the daemon) and over MCP resources.
"""

from __future__ import annotations

import asyncio
import shutil
import sys

import hostile_corpus as corpus
import httpx
import pytest
from _harness import LONG, lease_held_elsewhere, vault_hashes
from conftest import SAMPLE
from daemon_util import Daemon, cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon, symlinks")

# notes that are odd only on other systems (names): valid here, so user operations may work
VALID_ODD = {
    rel
    for rel in corpus.NOTES
    if any(
        k in rel for k in ("CON.md", "aux.md", "NUL.md", "COM1.md", "long name", "trailing dot", "unicode", "crlf bom")
    )
}
PROBLEM_NOTES = [rel for rel in corpus.NOTES if rel not in VALID_ODD] + [corpus.HUGE_NOTE]
WRITE_NOTE_REFS = [rel for rel in corpus.BAD_NOTE_REFS if rel not in VALID_ODD]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    vault = base / "vault"
    shutil.copytree(SAMPLE, vault)
    corpus.write_notes(vault)
    lease_held_elsewhere(vault)  # no background writes: any file change is a request's doing
    before = vault_hashes(vault)
    daemon = Daemon(vault, base / "home", MNEMOVAULT_QUIET_SECONDS=0).start(timeout=90)
    yield daemon, vault, before
    daemon.stop()
    daemon.close()


def _assert_clean_error(resp: httpx.Response, case: str) -> None:
    assert 400 <= resp.status_code < 500, f"{case}: {resp.status_code} {resp.text[:300]}"
    err = resp.json()["error"]
    assert err["code"] and err["message"], case
    assert corpus.SECRET_OUTSIDE not in resp.text, case


def test_bad_notes_are_reported_and_left_alone(hostile):
    daemon, vault, before = hostile
    status = daemon.status()
    causes: dict[str, list[str]] = {}
    for p in status["problems"]:
        causes.setdefault(p["path"], []).append(p["cause"])
    missing = [rel for rel in PROBLEM_NOTES if rel not in causes]
    assert not missing, f"no problem reported for {missing}"
    for rel in PROBLEM_NOTES:
        assert all(c.strip() for c in causes[rel])
    # the symlinks are not followed: nothing from outside the vault is indexed
    r = daemon.get("/api/search", {"q": corpus.SECRET_OUTSIDE})
    assert r.status_code == 200 and corpus.SECRET_OUTSIDE not in r.text
    assert vault_hashes(vault) == before, "indexing changed a file"


REF_ENDPOINTS = [
    ("GET", "/api/note", lambda ref: {"path": ref}),
    ("POST", "/api/touch", lambda ref: {"ref": ref}),
    ("POST", "/api/pin", lambda ref: {"ref": ref}),
    ("POST", "/api/unpin", lambda ref: {"ref": ref}),
    ("POST", "/api/promote", lambda ref: {"ref": ref}),
    ("POST", "/api/archive", lambda ref: {"ref": ref}),
    ("POST", "/api/restore", lambda ref: {"ref": ref}),
]
RPC_OPS = [
    ("note", lambda ref: {"ref": ref}),
    ("get_memory", lambda ref: {"refs": [ref]}),
    ("read_note", lambda ref: {"path": ref}),
    ("touch", lambda ref: {"ref": ref}),
    ("pin", lambda ref: {"ref": ref}),
    ("unpin", lambda ref: {"ref": ref}),
    ("observe", lambda ref: {"refs": [ref]}),
    ("promote", lambda ref: {"ref": ref}),
    ("archive", lambda ref: {"ref": ref}),
    ("restore", lambda ref: {"ref": ref}),
    ("relate", lambda ref: {"a": ref, "b": "Welcome.md"}),
    ("relate-target", lambda ref: {"a": "STM/Staging runs Postgres 16.md", "b": ref}),
    ("consolidate", lambda ref: {"ids": [ref, "STM/Staging runs Postgres 16.md"], "apply": True}),
    ("resolve_conflict", lambda ref: {"path": ref}),
]
READS = {"/api/note", "note", "get_memory", "read_note"}


def _http_calls(daemon, ref, as_target=True):
    for method, path, make in REF_ENDPOINTS:
        if method == "GET":
            yield path, daemon.get(path, make(ref))
        else:
            yield path, daemon.post(path, make(ref))
    for op, make in RPC_OPS:
        if op == "relate-target" and not as_target:
            continue  # relating a good memory to a note with bad frontmatter is allowed
        yield op, daemon.post("/api/rpc", {"op": op.split("-")[0], "args": make(ref)})


@pytest.mark.parametrize("case,ref", corpus.BAD_REFS, ids=[c for c, _ in corpus.BAD_REFS])
def test_bad_refs_over_http(hostile, case, ref):
    daemon, vault, before = hostile
    for where, resp in _http_calls(daemon, ref):
        if where == "observe":  # one bad ref is reported per ref, the others still run
            assert resp.status_code == 200 and resp.json()["result"]["errors"], f"{case} {where}: {resp.text[:300]}"
            assert corpus.SECRET_OUTSIDE not in resp.text
            continue
        _assert_clean_error(resp, f"{case} {where}")
    assert daemon.get("/api/status").status_code == 200
    assert vault_hashes(vault) == before


@pytest.mark.parametrize("rel", WRITE_NOTE_REFS)
def test_operations_on_bad_notes(hostile, rel):
    daemon, vault, before = hostile
    for where, resp in _http_calls(daemon, rel, as_target=False):
        assert corpus.SECRET_OUTSIDE not in resp.text
        if where in READS and resp.status_code == 200:
            continue  # reading a bad note is fine: it is data
        if where == "observe":
            assert resp.status_code == 200 and resp.json()["result"]["errors"], f"{rel} {where}: {resp.text[:300]}"
            continue
        _assert_clean_error(resp, f"{rel} {where}")
    assert vault_hashes(vault) == before


def test_malformed_requests_get_a_clean_error_and_odd_queries_no_crash(hostile):
    daemon, vault, before = hostile
    cases = [
        daemon.post("/api/touch", content=b"{not json"),
        daemon.post("/api/touch", content=b"[1, 2, 3]"),
        daemon.post("/api/touch", content=b"\xff\xfe\x00garbage"),
        daemon.post("/api/touch", {"ref": 12}),
        daemon.post("/api/touch", {"ref": ["STM/x.md"]}),
        daemon.post("/api/rpc", {"op": "__class__", "args": {}}),
        daemon.post("/api/rpc", {"op": "close", "args": {}}),
        daemon.post("/api/rpc", {"op": "touch", "args": {"ref": "x", "evil": 1}}),
        daemon.post("/api/rpc", {"op": "touch", "args": ["x"]}),
        daemon.post(
            "/api/rpc",
            {
                "op": "relate",
                "args": {"a": "STM/Staging runs Postgres 16.md", "b": "Welcome.md", "rel_type": "use_count"},
            },
        ),
        daemon.post(
            "/api/rpc",
            {
                "op": "relate",
                "args": {"a": "STM/Staging runs Postgres 16.md", "b": "Welcome.md", "rel_type": "../../x"},
            },
        ),
        daemon.get("/api/search", {"q": "x", "limit": "lots"}),
        daemon.get("/api/search", {"q": "x", "limit": str(10**12)}),
        daemon.get("/api/review", {"limit": "-1"}),
    ]
    for i, resp in enumerate(cases):
        _assert_clean_error(resp, f"case {i}")
    # a query is never FTS5 syntax: these answer normally
    for q in ['"unbalanced', "NEAR(a b", "a:b*", "-(x", "\x00", "' OR 1=1 --", "x" * 10000]:
        r = daemon.get("/api/search", {"q": q})
        assert r.status_code in (200, 400), (q[:20], r.text[:200])
    assert daemon.status()
    assert vault_hashes(vault) == before


@pytest.mark.parametrize("kind,text", corpus.secrets(), ids=[k for k, _ in corpus.secrets()])
def test_secrets_refused_over_http(hostile, kind, text):
    daemon, vault, before = hostile
    resp = daemon.post("/api/rpc", {"op": "save", "args": {"text": text, "tags": ["x"]}})
    assert resp.status_code == 422, resp.text[:300]
    message = resp.json()["error"]["message"]
    assert kind in message
    secret_part = max(text.split(), key=len)
    assert secret_part not in resp.text, "the error echoes the secret"
    assert vault_hashes(vault) == before


@pytest.mark.parametrize("case,text", corpus.BAD_TEXTS, ids=[c for c, _ in corpus.BAD_TEXTS])
def test_bad_texts_refused_over_http(hostile, case, text):
    daemon, vault, before = hostile
    resp = daemon.post("/api/rpc", {"op": "save", "args": {"text": text}})
    _assert_clean_error(resp, case)
    assert vault_hashes(vault) == before


def _mcp(daemon, calls):
    """Run (tool, args) calls through a real MCP client over the daemon's /mcp; (is_error, text) each."""
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    async def go():
        out = []
        async with Client(StreamableHttpTransport(daemon.url + "/mcp", headers=daemon.auth), timeout=60) as c:
            for tool, args in calls:
                res = await c.call_tool(tool, args, raise_on_error=False)
                text = " ".join(getattr(x, "text", "") for x in res.content)
                out.append((res.is_error, text))
            if LONG:
                for tool, args in calls[: len(corpus.BAD_REFS)]:  # the touch_memory calls: one per ref
                    try:
                        await c.read_resource(f"memory://{args.get('ref', 'x')}")
                        out.append((False, "resource read"))
                    except Exception as exc:  # noqa: BLE001 - a clear error is what we want
                        out.append((True, str(exc)))
        return out

    return asyncio.run(asyncio.wait_for(go(), 300))


MCP_TOOLS = [
    ("touch_memory", lambda ref: {"ref": ref}),
    ("get_memory", lambda ref: {"refs": [ref]}),
    ("read_note", lambda ref: {"path": ref}),
    ("promote_memory", lambda ref: {"ref": ref, "dry_run": False}),
    ("restore_memory", lambda ref: {"ref": ref}),
    ("create_relation", lambda ref: {"source": ref, "target": "Welcome.md"}),
    ("create_relation", lambda ref: {"source": "STM/Staging runs Postgres 16.md", "target": ref}),
    ("consolidate_memories", lambda ref: {"refs": [ref, "STM/Staging runs Postgres 16.md"], "apply": True}),
]


def test_bad_refs_over_mcp(hostile):
    daemon, vault, before = hostile
    refs = [ref for _, ref in corpus.BAD_REFS]
    some = refs if LONG else refs[::3]  # every ref goes through every HTTP endpoint above; here a third of them
    calls = [("touch_memory", {"ref": ref}) for ref in refs]
    for tool, make in MCP_TOOLS:
        calls += [(tool, make(ref)) for ref in some]
        if tool not in ("get_memory", "read_note") and "target" not in str(make("x")).replace(
            "'target': 'Welcome.md'", ""
        ):
            calls += [(tool, make(rel)) for rel in (WRITE_NOTE_REFS if LONG else WRITE_NOTE_REFS[::4])]
    calls += [("observe_memory_usage", {"refs": [ref]}) for ref in some]
    calls += [
        ("create_relation", {"source": "STM/Staging runs Postgres 16.md", "target": "Welcome.md", "relation_type": t})
        for t in ("use_count", "tags", "id", "status", "../x", "x" * 100)
    ]
    results = _mcp(daemon, calls)
    for (tool, args), (is_error, text) in zip(calls, results):
        assert corpus.SECRET_OUTSIDE not in text, (tool, args)
        if tool in ("observe_memory_usage", "get_memory"):  # a bad ref gets its own error, the others still run
            assert is_error or '"errors"' in text or "error" in text, (tool, args, text[:200])
            continue
        assert is_error, f"{tool} {args!r} succeeded: {text[:300]}"
        assert text.strip(), (tool, args)
    assert daemon.status()
    assert vault_hashes(vault) == before


def test_secrets_and_bad_texts_refused_over_mcp(hostile):
    daemon, vault, before = hostile
    calls = [("save_memory", {"text": text, "tags": ["x"]}) for _, text in corpus.secrets()]
    calls += [("save_memory", {"text": text}) for _, text in corpus.BAD_TEXTS]
    results = _mcp(daemon, calls)
    for (tool, args), (is_error, text) in zip(calls, results):
        assert is_error, f"save of {args['text'][:40]!r} succeeded"
        assert max(args["text"].split() or [""], key=len) not in text or not args["text"].strip()
    for (kind, _), (_, text) in zip(corpus.secrets(), results):
        assert kind in text
    assert vault_hashes(vault) == before


def test_hostile_titles_give_safe_names(hostile):
    """Last (it creates notes): a hostile title is refused or becomes a safe name in STM/."""
    daemon, vault, before = hostile
    created = []
    for i, (case, title) in enumerate(corpus.BAD_TITLES):
        text = f"A perfectly ordinary memory number {i} about the {case} title case."
        resp = daemon.post("/api/rpc", {"op": "save", "args": {"text": text, "title": title}})
        if resp.status_code != 200:
            _assert_clean_error(resp, case)
            continue
        path = (
            resp.json()["result"]["note"]["path"] if "note" in resp.json()["result"] else resp.json()["result"]["path"]
        )
        name = path.split("/", 1)[1]
        assert path.startswith("STM/") and "/" not in name and ".." not in name.removesuffix(".md"), (case, path)
        assert not name.startswith(".") and "\x00" not in name and len(name.encode()) <= 255, (case, path)
        assert name.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT1"}, (case, path)
        assert not any(ch in name for ch in '<>:"|?*\\') and all(ord(ch) >= 32 for ch in name), (case, path)
        assert (vault / path).is_file()
        created.append(path)
    after = vault_hashes(vault)
    assert {k: v for k, v in after.items() if k not in created} == before
    assert not (vault.parent / "outside" / "evil.md").exists()
    if LONG:
        for _, ref in corpus.BAD_REFS[:10]:
            r = cli("touch", ref, "--vault", str(vault), env=daemon.env, timeout=60)
            assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-500:]
    assert daemon.alive() and daemon.status()


def test_reachability_and_file_permissions(hostile):
    """What docs/security.md claims: loopback only, token, Host/Origin checks, private files."""
    import os
    import socket
    import stat

    daemon, vault, before = hostile
    port = daemon.info["port"]
    plain = httpx.Client(timeout=10)
    assert plain.get(f"{daemon.url}/api/status").status_code == 401
    assert plain.get(f"{daemon.url}/api/status", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert plain.post(f"{daemon.url}/mcp", json={}).status_code == 401
    assert (
        plain.get(f"{daemon.url}/api/status", headers={**daemon.auth, "Host": f"evil.example:{port}"}).status_code
        == 403
    )
    assert (
        plain.get(f"{daemon.url}/api/status", headers={**daemon.auth, "Origin": "https://evil.example"}).status_code
        == 403
    )
    # bound to 127.0.0.1 only: the same port on another local address refuses the connection
    try:
        other = socket.gethostbyname(socket.gethostname())
    except OSError:
        other = None
    if other and not other.startswith("127."):
        with pytest.raises(OSError):
            socket.create_connection((other, port), timeout=2).close()
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    config = daemon.home / "config"
    assert mode(daemon.bridge) == 0o600
    assert mode(config / "token") == 0o600
    assert mode(config) == 0o700 and mode(config / "bridges") == 0o700
    assert mode(daemon.home / "logs") == 0o700
    index = daemon.index_path
    for p in (index, index.with_name(index.name + "-wal")):
        if p.exists():
            assert mode(p) == 0o600, p
