"""The note open in the editor is not rewritten by background work.

The plugin reports the open note over the real HTTP bridge (uvicorn on 127.0.0.1, the app
the daemon serves); the lifecycle the daemon schedules (`run_lifecycle`) and the sweep run
on a fixed clock that the tests move by hand.
"""

from __future__ import annotations

import hashlib
import socket
import threading
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from conftest import FIXED_NOW, assert_index_matches_rebuild, make_service
from daemon_util import wait_for

from vault_sync.editor_hold import HOLD_SECONDS, EditorHold
from vault_sync.errors import InvalidInput

STAMP = "%Y-%m-%dT%H:%M:%SZ"
TOKEN = "e" * 40


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def _note(n: int, last, uses: int = 1) -> str:
    # no decay_score written yet: every sweep wants to write these
    return (
        f"---\nid: 00000000-0000-4000-8000-{n:012d}\ncreated: {last.strftime(STAMP)}\n"
        f"last_used: {last.strftime(STAMP)}\nuse_count: {uses}\nstrength: 1.0\nstatus: active\n---\nMemory {n}.\n"
    )


def _hashes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*.md")
        if ".mnemovault" not in p.parts
    }


@contextmanager
def bridge(svc):
    """The daemon's HTTP app on 127.0.0.1 in a thread; yields a client with the token."""
    import uvicorn

    from bridge.http_app import build_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(svc, TOKEN, lambda: port), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    assert wait_for(lambda: server.started, 10)
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
        ) as c:
            yield c
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture
def setup(empty_vault):
    """Four STM memories a day old with no written score, a fixed clock, the bridge."""
    stm = empty_vault / "STM"
    for n, name in enumerate(("open", "a", "b", "c"), start=1):
        (stm / f"{name}.md").write_text(_note(n, FIXED_NOW - timedelta(days=1)), encoding="utf-8")
    clock = Clock(FIXED_NOW)
    svc = make_service(empty_vault)
    svc.clock = clock
    with bridge(svc) as client:
        yield svc, client, clock, empty_vault
    svc.close()


def _editing(client, body) -> httpx.Response:
    return client.post("/api/editing", json=body)


# -- the hold on its own clock --


def test_hold_lasts_until_another_report_or_a_minute_without_one():
    clock = Clock(FIXED_NOW)
    hold = EditorHold(clock)
    assert hold.held() is None
    assert hold.report("STM/x.md") == "STM/x.md"
    clock.now += timedelta(seconds=50)
    assert hold.holds("STM/x.md") and not hold.holds("STM/y.md")
    hold.report("STM/x.md")  # a heartbeat restarts the minute
    clock.now += timedelta(seconds=50)
    assert hold.held() == "STM/x.md"
    clock.now += timedelta(seconds=HOLD_SECONDS - 50)
    assert hold.held() is None  # idle a minute
    hold.report("STM/x.md")
    hold.report("LTM/other.md")
    assert hold.held() == "LTM/other.md" and not hold.holds("STM/x.md")
    hold.report(None)
    assert hold.held() is None
    # a decomposed name (macOS) holds the composed one the index has
    hold.report("STM/Cafe\u0301.md")
    assert hold.holds("STM/Caf\u00e9.md")


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "/abs/x.md",
        "C:/x.md",
        "STM\\x.md",
        "../x.md",
        "STM/../x.md",
        "STM//x.md",
        "STM/x.txt",
        "STM/x",
        "STM/.md",
        "STM/a\nb.md",
        "STM/\u202ex.md",
        "x" * 1100 + ".md",
        7,
    ],
)
def test_only_vault_relative_markdown_paths_are_held(bad):
    hold = EditorHold(Clock(FIXED_NOW))
    hold.report("STM/kept.md")
    with pytest.raises(InvalidInput) as err:
        hold.report(bad)
    assert "\n" not in str(err.value) and "xxxxxxxx" not in str(err.value)  # never echoed
    assert hold.held() == "STM/kept.md"


@pytest.mark.parametrize(
    "bad, kind", [("/abs/x.md", "absolute"), ("C:/x.md", "absolute"), ("../x.md", "parent"), ("STM/../x.md", "parent")]
)
def test_editor_hold_and_safe_rel_refuse_the_same_outside_paths_each_in_its_own_words(tmp_path, bad, kind):
    from vault_sync.editor_hold import check_path
    from vault_sync.errors import PathOutsideVault
    from vault_sync.vault import Layout, outside_reason

    assert outside_reason(bad) == kind and outside_reason("STM/x.md") is None
    with pytest.raises(InvalidInput) as held:
        check_path(bad)
    with pytest.raises(PathOutsideVault) as tool:
        Layout(tmp_path).safe_rel(bad)
    assert bad not in str(held.value) and repr(bad) in str(tool.value)  # only the tool's error quotes
    assert ("relative to the vault" if kind == "absolute" else "'..'") in str(held.value)
    assert ("absolute paths" if kind == "absolute" else "'..' is not allowed") in str(tool.value)


# -- the API and the writes it holds back --


def test_report_answers_the_held_path_and_status_shows_it(setup):
    svc, client, clock, vault = setup
    r = _editing(client, {"path": "STM/open.md"})
    assert r.status_code == 200 and r.json() == {"path": "STM/open.md", "hold_seconds": 60}
    assert client.get("/api/status").json()["editing"] == "STM/open.md"
    # a note that does not exist yet (just created) is accepted and breaks nothing
    r = _editing(client, {"path": "STM/New note.md"})
    assert r.json() == {"path": "STM/New note.md", "hold_seconds": 60}
    assert svc.run_lifecycle()["sweep"]["written"] == 4
    r = client.post("/api/rpc", json={"op": "editing", "args": {"path": None}})
    assert r.status_code == 200 and r.json()["result"] == {"path": None, "hold_seconds": 60}
    assert client.get("/api/status").json()["editing"] is None


def test_a_held_note_is_byte_identical_after_sweeps_that_rewrite_its_neighbours(setup):
    svc, client, clock, vault = setup
    held = vault / "STM" / "open.md"
    before, original = _hashes(vault), held.read_bytes()
    assert _editing(client, {"path": "STM/open.md"}).status_code == 200
    report = svc.run_lifecycle()["sweep"]
    assert (report["written"], report["held"]) == (3, 1)
    r = client.post("/api/rpc", json={"op": "sweep", "args": {"full": True}})  # forced: still not the open note
    assert r.status_code == 200 and r.json()["result"]["held"] == 1
    after = _hashes(vault)
    assert held.read_bytes() == original
    assert sorted(k for k in before if before[k] != after[k]) == ["STM/a.md", "STM/b.md", "STM/c.md"]
    for step in range(5):  # heartbeats every 20 s over many passes: still held
        clock.now += timedelta(seconds=20)
        _editing(client, {"path": "STM/open.md"})
        svc.run_lifecycle()
    assert held.read_bytes() == original
    assert_index_matches_rebuild(svc)


@pytest.mark.parametrize("release", ["null", "another", "idle"])
def test_after_release_the_next_pass_writes_it(setup, release):
    svc, client, clock, vault = setup
    held = vault / "STM" / "open.md"
    original = held.read_bytes()
    _editing(client, {"path": "STM/open.md"})
    svc.run_lifecycle()
    clock.now += timedelta(seconds=30)
    svc.run_lifecycle()
    assert held.read_bytes() == original
    if release == "null":
        _editing(client, {"path": None})
    elif release == "another":
        _editing(client, {"path": "STM/a.md"})
    else:
        clock.now += timedelta(seconds=31)  # 61 s since the last report
    report = svc.run_lifecycle()["sweep"]
    assert (report["written"], report["held"]) == (1, 0)
    assert held.read_bytes() != original and b"decay_score:" in held.read_bytes()
    assert_index_matches_rebuild(svc)


def test_a_held_note_due_for_archive_or_promotion_moves_only_after_release(empty_vault):
    stm = empty_vault / "STM"
    (stm / "gone.md").write_text(_note(1, FIXED_NOW - timedelta(days=90)), encoding="utf-8")
    (stm / "gone too.md").write_text(_note(2, FIXED_NOW - timedelta(days=90)), encoding="utf-8")
    (stm / "strong.md").write_text(_note(3, FIXED_NOW - timedelta(hours=1), uses=6), encoding="utf-8")
    clock = Clock(FIXED_NOW)
    svc = make_service(empty_vault)
    svc.clock = clock
    with bridge(svc) as client:
        _editing(client, {"path": "STM/gone.md"})
        out = svc.run_lifecycle()
        assert [m["from"] for m in out["gc"]["archived"]] == ["STM/gone too.md"]
        assert (stm / "gone.md").read_bytes() == _note(1, FIXED_NOW - timedelta(days=90)).encode()
        assert [m["from"] for m in out["promote"]["promoted"]] == ["STM/strong.md"]
        clock.now += timedelta(minutes=5)
        _editing(client, {"path": "STM/gone.md"})
        assert svc.run_lifecycle()["gc"]["archived"] == []
        _editing(client, {"path": None})
        out = svc.run_lifecycle()
        assert [m["from"] for m in out["gc"]["archived"]] == ["STM/gone.md"]
        assert (empty_vault / "Archive" / "gone.md").exists() and not (stm / "gone.md").exists()
    assert_index_matches_rebuild(svc)
    svc.close()


def test_explicit_actions_on_the_held_note_are_not_deferred(setup):
    svc, client, clock, vault = setup
    held = vault / "STM" / "open.md"
    original = held.read_bytes()
    _editing(client, {"path": "STM/open.md"})
    r = client.post("/api/touch", json={"ref": "STM/open.md"})
    assert r.status_code == 200
    text = held.read_text(encoding="utf-8")
    assert text != original.decode() and "use_count: 2" in text
    r = client.post("/api/archive", json={"ref": "STM/open.md"})  # the person asked for it
    assert r.status_code == 200 and (vault / "Archive" / "open.md").exists()
    assert_index_matches_rebuild(svc)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"path": "STM/open.md", "extra": 1},
        {"path": "../x.md"},
        {"path": "/etc/passwd.md"},
        {"path": "STM/open.txt"},
        {"path": 5},
        {"path": ["STM/open.md"]},
        {"path": "a" * 1100 + ".md"},
        {"path": "STM/a\u0000.md"},
        {"path": False},
    ],
)
def test_bad_bodies_are_400_and_change_nothing(setup, body):
    svc, client, clock, vault = setup
    _editing(client, {"path": "STM/a.md"})
    before = _hashes(vault)
    r = _editing(client, body)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid", r.text
    assert client.get("/api/status").json()["editing"] == "STM/a.md"  # the hold stands
    r = client.post("/api/rpc", json={"op": "editing", "args": body})
    assert r.status_code == 400
    assert client.get("/api/status").json()["editing"] == "STM/a.md"
    assert _hashes(vault) == before
    assert client.post("/api/editing", content=b"not json").status_code == 400


# -- `full` on every front end --


def test_sweep_full_over_rpc_refreshes_now_and_is_strictly_typed(setup):
    svc, client, clock, vault = setup
    assert svc.sweep()["written"] == 4
    clock.now += timedelta(hours=2)  # the rounded scores moved; none is due yet
    r = client.post("/api/rpc", json={"op": "sweep", "args": {}})
    assert r.status_code == 200 and r.json()["result"]["written"] == 0
    before = _hashes(vault)
    for bad in ({"full": "yes"}, {"full": None}, {"full": 1}, {"fast": True}):
        r = client.post("/api/rpc", json={"op": "sweep", "args": bad})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid"
    assert _hashes(vault) == before
    r = client.post("/api/rpc", json={"op": "sweep", "args": {"full": True}})
    assert r.status_code == 200 and r.json()["result"]["written"] == 4
    assert all(before[k] != v for k, v in _hashes(vault).items())
    assert_index_matches_rebuild(svc)


def test_the_cli_sweep_goes_through_the_daemon_and_skips_the_note_open_in_its_editor(tmp_path):
    from daemon_util import QUIET_LIFECYCLE, Daemon, cli

    vault = tmp_path / "vault"
    (vault / "STM").mkdir(parents=True)
    last = FIXED_NOW - timedelta(days=1)
    d = Daemon(vault, tmp_path / "home", MNEMOVAULT_QUIET_SECONDS="0", **QUIET_LIFECYCLE)
    try:
        d.start()
        assert d.post("/api/editing", {"path": "STM/open.md"}).json() == {"path": "STM/open.md", "hold_seconds": 60}
        for n, name in ((1, "open"), (2, "twin")):  # created after the report, as a new note in the editor
            (vault / "STM" / f"{name}.md").write_text(_note(n, last), encoding="utf-8")
        assert wait_for(
            lambda: all(d.get("/api/note", params={"path": f"STM/{x}.md"}).status_code == 200 for x in ("open", "twin"))
        )
        original = (vault / "STM" / "open.md").read_bytes()
        out = cli("sweep", "--full", "--json", "--vault", str(vault), env=d.env)
        assert out.returncode == 0, out.stderr
        import json

        report = json.loads(out.stdout)
        assert report["held"] == 1 and report["written"] == 1
        assert (vault / "STM" / "open.md").read_bytes() == original
        assert b"decay_score:" in (vault / "STM" / "twin.md").read_bytes()
        d.post("/api/editing", {"path": None})
        out = cli("sweep", "--vault", str(vault), env=d.env)
        assert out.returncode == 0 and "1 written" in out.stdout, out.stdout
        assert (vault / "STM" / "open.md").read_bytes() != original
    finally:
        d.close()


def _fm_note(n: int, last, uses: int = 1, strength: float = 1.0, extra: str = "", status: str = "active") -> str:
    return (
        f"---\nid: 00000000-0000-4000-8000-{n:012d}\ncreated: {last.strftime(STAMP)}\nlast_used: "
        f"{last.strftime(STAMP)}\n"
        f"use_count: {uses}\nstrength: {strength}\nstatus: {status}\n{extra}---\nMemory number {n} here.\n"
    )


def test_jobs_and_bulk_moves_through_a_real_daemon_leave_the_open_note_and_catch_up_later(tmp_path):
    import json
    from datetime import datetime, timezone

    from daemon_util import QUIET_LIFECYCLE, Daemon, cli

    vault = tmp_path / "vault"
    stm = vault / "STM"
    stm.mkdir(parents=True)
    now = datetime.now(timezone.utc)  # the daemon runs on the real clock
    old, recent = now - timedelta(days=90), now - timedelta(hours=1)
    notes = {
        "old1": _fm_note(1, old),
        "old2": _fm_note(2, old),
        "fresh": _fm_note(3, recent, uses=6, strength=1.5),
        "twin1": _fm_note(6, recent),
        "twin2": _fm_note(7, recent),
        "twin3": _fm_note(8, recent),
    }
    for n, name in ((4, "rep1"), (5, "rep2")):  # replaced by a newer fact: GC archives them whatever their score
        notes[name] = _fm_note(
            n, recent, uses=3, strength=2.0, extra='superseded_by: "[[fresh]]"\n', status="superseded"
        )
    for name, text in notes.items():
        (stm / f"{name}.md").write_text(text, encoding="utf-8")
    d = Daemon(vault, tmp_path / "home", MNEMOVAULT_QUIET_SECONDS="0", **QUIET_LIFECYCLE)

    def indexed(*names: str) -> bool:
        return all(d.get("/api/note", params={"path": f"STM/{x}.md"}).status_code == 200 for x in names)

    def job(kind: str, **body) -> dict:
        started = d.post("/api/jobs", {"kind": kind, **body})
        assert started.status_code == 200, started.text

        def finished():
            found = [j for j in d.get("/api/jobs").json()["jobs"] if j["id"] == started.json()["id"]]
            return found[0] if found and found[0]["state"] != "running" else None

        return wait_for(finished, 60)

    def hold(name: str) -> bytes:
        assert d.post("/api/editing", {"path": f"STM/{name}.md"}).status_code == 200
        return (stm / f"{name}.md").read_bytes()

    try:
        d.start()
        assert wait_for(lambda: indexed(*notes))
        # a GC asked for on the command line (a bulk move): the open note waits, here a superseded one
        before = hold("rep1")
        out = cli("gc", "--apply", "--json", "--vault", str(vault), env=d.env)
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert sorted(m["from"] for m in report["archived"]) == ["STM/old1.md", "STM/old2.md", "STM/rep2.md"]
        assert report["held"] == ["STM/rep1.md"] and (stm / "rep1.md").read_bytes() == before
        # a GC job: the open note waits; the one let go is caught up
        (stm / "old3.md").write_text(_fm_note(9, old), encoding="utf-8")
        assert wait_for(lambda: indexed("old3"))
        before = hold("old3")
        done = job("gc")
        assert done["state"] == "done", done
        assert [m["from"] for m in done["result"]["archived"]] == ["STM/rep1.md"]
        assert done["result"]["held"] == ["STM/old3.md"] and (stm / "old3.md").read_bytes() == before
        # a promote job
        before = hold("fresh")
        done = job("promote")
        assert done["result"]["promoted"] == [] and done["result"]["held"] == ["STM/fresh.md"]
        assert (stm / "fresh.md").read_bytes() == before
        # a consolidation job leaves the open note out; with fewer than two left it fails, saying why
        before = hold("twin1")
        failed = job("consolidate", ids=["STM/twin1.md", "STM/twin2.md"])
        assert failed["state"] == "failed" and "open in the editor" in failed["error"]["message"]
        done = job("consolidate", ids=["STM/twin1.md", "STM/twin2.md", "STM/twin3.md"])
        assert done["state"] == "done", done
        assert sorted(m["from"] for m in done["result"]["archived"]) == ["STM/twin2.md", "STM/twin3.md"]
        assert done["result"]["held"] == ["STM/twin1.md"] and (stm / "twin1.md").read_bytes() == before
        # let go: the next runs catch up
        assert d.post("/api/editing", {"path": None}).status_code == 200
        assert [m["from"] for m in job("gc")["result"]["archived"]] == ["STM/old3.md"]
        assert "STM/fresh.md" in [m["from"] for m in job("promote")["result"]["promoted"]]
        # what the person asks for on that one note still happens at once
        hold("twin1")
        r = d.post("/api/archive", {"ref": "STM/twin1.md"})
        assert r.status_code == 200 and (vault / "Archive" / "twin1.md").exists()
    finally:
        d.close()
