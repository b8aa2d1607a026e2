"""Several devices: two daemons on two copies of a vault (different config dirs, so
different device ids and bridge files), kept in sync by a test helper that copies changed
files both ways (each device's heartbeat file included), as Syncthing or Obsidian Sync would.

- only the lease holder runs background writes; the other says who holds it;
- after the holder stops (SIGTERM releases the lease) or dies (kill -9: the lease
  expires), the other takes over;
- user operations (touch through the bridge) work on both devices;
- conflict copies named the way Obsidian Sync, Syncthing, Dropbox, OneDrive, iCloud and
  Google Drive name them are detected, never indexed as memories, listed in status and by
  `mnemovault conflicts list`, and `mnemovault conflicts resolve PATH` merges a memory's
  copy (counters by max, text kept from both; the copy goes to .trash).

Short form (default run): one hand-over each way. Long form, by hand:
    RELIABILITY_LONG=1 .venv/bin/python -m pytest tests/reliability/test_devices.py -q -s
repeats the hand-over 5 times with a person touching notes on both devices throughout.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from _harness import memory_ids, scale
from conftest import SAMPLE
from daemon_util import Daemon, child_env, cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon")

ROUNDS = scale(1, 5)
ENV = dict(
    MNEMOVAULT_QUIET_SECONDS=0,
    MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS=1,
    MNEMOVAULT_LEASE_SECONDS=3,
    MNEMOVAULT_AUTO_PROMOTE="true",
    MNEMOVAULT_AUTO_GC="true",
)


class Syncer:
    """Copies changed files between two folders every 0.2 s; the newest version wins, deletions
    propagate. Skips our temp files and the per-device journal, like a sync tool's ignore list."""

    def __init__(self, a: Path, b: Path):
        self.roots = (a, b)
        self.known: dict[str, str] = {}  # rel -> hash both sides agreed on last round
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.lock = threading.Lock()

    @staticmethod
    def _files(root: Path) -> dict[str, tuple[str, int]]:
        out = {}
        for p in root.rglob("*"):
            rel = p.relative_to(root).as_posix()
            if not p.is_file() or ".mvtmp-" in p.name or "/journal/" in f"/{rel}" or p.name.endswith(".tmp"):
                continue
            try:
                data = p.read_bytes()
                out[rel] = (hashlib.sha1(data).hexdigest(), p.stat().st_mtime_ns)
            except OSError:
                continue
        return out

    @staticmethod
    def _copy(src: Path, dst: Path) -> None:
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(f".{dst.name}.sync.tmp")
        try:
            shutil.copy2(src, tmp)
            os.replace(tmp, dst)
        except OSError:
            tmp.unlink(missing_ok=True)

    def round(self) -> None:
        with self.lock:
            a, b = self.roots
            fa, fb = self._files(a), self._files(b)
            for rel in set(fa) | set(fb):
                ha, hb = fa.get(rel), fb.get(rel)
                if ha and hb:
                    if ha[0] != hb[0]:
                        src, dst = (a, b) if ha[1] >= hb[1] else (b, a)
                        self._copy(src / rel, dst / rel)
                    self.known[rel] = (ha if ha[1] >= hb[1] else hb)[0]
                elif ha or hb:
                    have, other, h = (a, b, ha) if ha else (b, a, hb)
                    if rel in self.known and self.known[rel] == h[0]:
                        (have / rel).unlink(missing_ok=True)  # deleted on the other side
                        self.known.pop(rel, None)
                    else:
                        self._copy(have / rel, other / rel)
                        self.known[rel] = h[0]

    def _loop(self) -> None:
        while not self.stop_event.wait(0.2):
            self.round()

    def __enter__(self):
        self.round()
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_event.set()
        self.thread.join(5)


def _wait(cond, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _lease(d: Daemon) -> dict:
    return d.status()["lease"] or {}


def _touch_some(d: Daemon, vault: Path, n: int = 2) -> None:
    stm = sorted((vault / "STM").glob("*.md"))[:n]
    ids = memory_ids(vault)
    by_path = {ps[0]: i for i, ps in ids.items()}
    for p in stm:
        rel = p.relative_to(vault).as_posix()
        r = d.post("/api/touch", {"ref": by_path.get(rel, rel)})
        assert r.status_code in (200, 404, 409), r.text  # 404/409: moved by the holder meanwhile
        if r.status_code == 200:
            return
    raise AssertionError(f"no touch succeeded on {d.vault}")


def test_lease_hand_over_between_two_devices(tmp_path):
    from bridge.bench.generate import generate
    from vault_sync.dates import utc_now

    va, vb = tmp_path / "device-a" / "vault", tmp_path / "device-b" / "vault"
    generate(va, 80, utc_now(), seed=5)
    shutil.copytree(va, vb)
    a = Daemon(va, tmp_path / "home-a", **ENV)
    b = Daemon(vb, tmp_path / "home-b", **ENV)
    with Syncer(va, vb):
        try:
            a.start(timeout=90)
            dev_a = _wait(lambda: _lease(a).get("held") and _lease(a)["holder"], 15, "device A to take the lease")
            b.start(timeout=90)
            for _ in range(ROUNDS):
                # B sees A's lease (synced) and leaves background writes to it
                lease_b = _wait(
                    lambda: (lambda s: s if s.get("holder") == dev_a else None)(_lease(b)),
                    15,
                    "device B to see A's lease",
                )
                assert lease_b["held"] is False
                # each daemon writes its own heartbeat file; B's status names A as the holder and itself
                seen = _wait(
                    lambda: (lambda d: d if len(d["devices"]) == 2 else None)(b.status()["devices"]),
                    15,
                    "both heartbeats on B",
                )
                assert seen["holder"]["device"] == dev_a and seen["this_device"] != dev_a
                assert not (va / ".mnemovault" / "lease.json").exists() and seen["conflict_copies"] == []
                _wait(lambda: "background writes left to device" in b.log_text(), 15, "B to skip its lifecycle")
                _touch_some(b, vb)  # a user operation works on the non-holder
                _touch_some(a, va)
                # A stops cleanly: it releases the lease, B takes over
                assert a.stop() == 0
                dev_b = _wait(lambda: _lease(b).get("held") and _lease(b)["holder"], 20, "device B to take over")
                assert dev_b != dev_a
                # A comes back: it waits for B's lease
                a.start(timeout=90)
                _wait(
                    lambda: (lambda s: s.get("holder") == dev_b and not s["held"])(_lease(a)), 15, "A to see B's lease"
                )
                _touch_some(a, va)
                # B dies without releasing: A takes over once the lease expires (3 s)
                b.kill()
                _wait(lambda: _lease(a).get("held"), 20, "device A to take over after the lease expired")
                b.start(timeout=90)
            assert "Traceback" not in a.log_text() + b.log_text()
        finally:
            a.stop()
            b.stop()


CONFLICT_NAMES = {
    "Syncthing": "{stem}.sync-conflict-20261121-103000-ABCDEF7.md",
    "Dropbox": "{stem} (Ana's conflicted copy 2026-11-21).md",
    "Obsidian Sync": "{stem} (Conflict 2026-11-21 103000).md",
    "OneDrive": "{stem}-DESKTOP-A1B2C3D.md",
    "iCloud": "{stem}.icloud-conflict-2.md",
    "Google Drive": "{stem} [Conflict].md",
}


@pytest.mark.parametrize("tool,pattern", CONFLICT_NAMES.items(), ids=list(CONFLICT_NAMES))
def test_conflict_copy_names_are_recognised(tool, pattern):
    from vault_sync.vault import conflict_original

    assert conflict_original(pattern.format(stem="Staging runs Postgres 16")) == "Staging runs Postgres 16.md", tool
    assert conflict_original("Staging runs Postgres 16.md") is None


def test_conflict_copies_listed_never_indexed_and_resolved(tmp_path):
    from conftest import make_service

    from vault_sync.note import parse_note

    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE, vault)
    stm = sorted((vault / "STM").glob("*.md"))[: len(CONFLICT_NAMES)]
    copies = {}
    for (tool, pattern), orig in zip(CONFLICT_NAMES.items(), stm):
        text = orig.read_text(encoding="utf-8")
        # the other device used it more and added a line
        text = re.sub(r"(?m)^use_count: \d+", "use_count: 9", text)
        text = text.rstrip("\n") + f"\n\nAdded on the other device ({tool}).\n"
        copy = orig.with_name(pattern.format(stem=orig.stem))
        copy.write_text(text, encoding="utf-8")
        copies[tool] = (orig, copy)
    svc = make_service(vault)
    try:
        status = svc.status()
        listed = {c["path"]: c["original"] for c in status["conflicts"]}
        for tool, (orig, copy) in copies.items():
            rel, orig_rel = copy.relative_to(vault).as_posix(), orig.relative_to(vault).as_posix()
            assert listed.get(rel) == orig_rel, (tool, listed)
            assert svc.store.note(rel) is None, f"{tool} copy indexed as a note"
        ids = [r[0] for r in svc.store.query("SELECT id FROM notes WHERE id IS NOT NULL")]
        assert len(ids) == len(set(ids)), "a conflict copy's id was indexed twice"
    finally:
        svc.close()

    home = tmp_path / "home"
    env = child_env(home, MNEMOVAULT_NO_DAEMON="1")
    r = cli("conflicts", "list", "--json", "--vault", str(vault), env=env)
    assert r.returncode == 0, r.stderr
    assert {c["path"] for c in json.loads(r.stdout)} == set(listed)

    orig, copy = copies["Syncthing"]
    before = parse_note(orig.name, orig.read_bytes())
    theirs = parse_note(copy.name, copy.read_bytes())
    rel = copy.relative_to(vault).as_posix()
    r = cli("conflicts", "resolve", rel, "--json", "--vault", str(vault), env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    merged = parse_note(orig.name, orig.read_bytes())
    assert merged.fields.use_count == max(before.fields.use_count, theirs.fields.use_count)
    assert merged.fields.id == before.fields.id
    assert (
        before.body.strip().splitlines()[0] in merged.body and "Added on the other device (Syncthing)." in merged.body
    )
    assert not copy.exists()
    assert any(p.name.startswith(copy.stem) for p in (vault / ".trash").glob("*.md")), "the copy is not in .trash"
    svc = make_service(vault)
    try:
        left = {c["path"] for c in svc.status()["conflicts"]}
        assert rel not in left and len(left) == len(CONFLICT_NAMES) - 1
    finally:
        svc.close()
