"""Two devices through real Syncthing (Debian's package, two instances on loopback): a memory's
id never changes because Syncthing delivered a move as a create and a delete, a promotion
split from a use on the other side settles to one memory with the uses of both sides added,
and a split longer than the lease makes no conflict copy of the lease (one file per device)
and shows in `status`."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from conftest import FIXED_NOW
from syncthing_pair import BINARY, Pair, files_of

from vault_sync import devices
from vault_sync.dates import format_datetime, utc_now
from vault_sync.lease import Lease
from vault_sync.note import parse_note
from vault_sync.service import MemoryService
from vault_sync.settings import load_settings
from vault_sync.vault import conflict_original

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BINARY is None, reason="syncthing is not installed (apt-get install syncthing)"),
]


@pytest.fixture
def pair(tmp_path):
    p = Pair(tmp_path)
    yield p
    p.stop()


def _service(vault, index, ahead: float = 0.0) -> MemoryService:
    settings = load_settings(vault=vault, index_path=index, embeddings=False, quiet_seconds=0, auto_gc=False)
    svc = MemoryService(settings, clock=lambda: utc_now() + timedelta(seconds=ahead))
    config = index.parent / f"config-{vault.name}"  # one config folder per device: its own device id
    config.mkdir(exist_ok=True)
    (config / "device_id").write_text(f"device-{vault.name}\n", encoding="utf-8")
    svc.runtime.know_device(config)
    return svc


def _ids(vault) -> dict[str, str]:
    out = {}
    for rel, data in files_of(vault).items():
        if rel.endswith(".md") and rel.split("/", 1)[0] in ("STM", "LTM", "Archive"):
            note = parse_note(rel, data)
            if note.fields.id:
                out[rel] = note.fields.id
    return out


def _conflict_copies(vault) -> list[str]:
    return [rel for rel in files_of(vault) if conflict_original(rel.rsplit("/", 1)[-1])]


def _wait_indexed(svc, watcher, mid: str, where: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        watcher.wait_idle(timeout=2)
        rows = svc.store.query("SELECT path FROM notes WHERE id = ?", (mid,))
        if [r["path"] for r in rows] == [where]:
            return
        time.sleep(0.1)
    raise AssertionError(f"{mid} not indexed at {where} alone: {[r['path'] for r in rows]}")


def _setup(pair, tmp_path):
    for v in (pair.a.vault, pair.b.vault):
        for folder in ("STM", "LTM"):
            (v / folder).mkdir(exist_ok=True)
    a = _service(pair.a.vault, tmp_path / "index-a.sqlite3")
    saved = a.save("The on-call rotation hands over every Monday at 09:00 in the ops channel.")["note"]
    for _ in range(3):
        a.touch(saved["id"])
    pair.sync()
    b = _service(pair.b.vault, tmp_path / "index-b.sqlite3")
    b.sync()
    assert b.get_memory([saved["id"]])[0]["path"] == saved["path"]
    return a, b, saved


def test_a_promotion_keeps_the_id_on_the_other_device(pair, tmp_path):
    a, b, saved = _setup(pair, tmp_path)
    watcher = b.start_watcher(reconcile_interval=600.0)
    try:
        moved = a.promote(saved["id"])
        dst = moved["promoted"][0]["to"] if "promoted" in moved else moved["to"]
        pair.sync()  # Syncthing: "new file in LTM/", then "file in STM/ deleted"
        _wait_indexed(b, watcher, saved["id"], dst)
        assert b.touch(saved["id"])["note"]["path"] == dst  # the id an assistant stored still works
        pair.sync()
        assert _ids(pair.a.vault) == _ids(pair.b.vault) == {dst: saved["id"]}
        assert _conflict_copies(pair.a.vault) == [] == _conflict_copies(pair.b.vault)
        assert files_of(pair.a.vault) == files_of(pair.b.vault)
    finally:
        b.runtime.stop_watcher()
        a.close()
        b.close()


def test_a_promotion_split_from_a_use_settles_to_one_memory(pair, tmp_path):
    a, b, saved = _setup(pair, tmp_path)
    uses = parse_note(saved["path"], (pair.a.vault / saved["path"]).read_bytes()).fields.use_count
    pair.a.pause(pair.b)
    pair.b.pause(pair.a)
    Pair.wait(lambda: not pair.a.connected(pair.b), "the split")
    moved = a.promote(saved["id"])  # device a promotes while device b uses it twice
    dst = moved["promoted"][0]["to"] if "promoted" in moved else moved["to"]
    for _ in range(2):
        b.touch(saved["id"])
    pair.a.resume(pair.b)
    pair.b.resume(pair.a)
    Pair.wait(lambda: pair.a.connected(pair.b) and pair.b.connected(pair.a), "the heal")
    pair.sync()
    a.sync()
    b.sync()
    later = _service(pair.a.vault, tmp_path / "index-a.sqlite3", ahead=a.settings.duplicate_settle_seconds + 5)
    try:
        later.sync()  # device a, past the wait: the copy left in STM/ settles
        pair.sync()
        b.sync()
        ids = _ids(pair.a.vault)
        assert ids == _ids(pair.b.vault) == {dst: saved["id"]}, ids
        kept = parse_note(dst, (pair.a.vault / dst).read_bytes())
        assert kept.fields.use_count >= uses + 2  # the uses made on b during the split are kept
        assert _conflict_copies(pair.a.vault) == [] == _conflict_copies(pair.b.vault)
        assert b.get_memory([saved["id"]])[0]["path"] == dst
        text = (pair.a.vault / dst).read_text(encoding="utf-8")
        assert re.search(r"on-call rotation", text)
    finally:
        later.close()
        a.close()
        b.close()


def test_a_split_longer_than_the_lease_makes_no_conflict_copy_and_shows_in_status(pair):
    ttl = 900
    clock = {"a": FIXED_NOW, "b": FIXED_NOW}

    def lease(side: str, device: str, seconds: float) -> Lease:
        clock[side] = FIXED_NOW + timedelta(seconds=seconds)
        vault = pair.a.vault if side == "a" else pair.b.vault
        return Lease(vault, device, ttl, clock=lambda: clock[side])

    assert lease("a", "desk", 0).acquire().held
    pair.sync()
    assert lease("b", "laptop", 60).acquire().holder == "desk"
    pair.sync()
    pair.a.pause(pair.b)
    pair.b.pause(pair.a)
    Pair.wait(lambda: not pair.a.connected(pair.b), "the split")
    for seconds in (300, 600):
        assert lease("a", "desk", seconds).acquire().held
    assert lease("b", "laptop", ttl + 10).acquire().held  # the desk's term expired on this side
    assert lease("a", "desk", ttl + 20).acquire().held
    pair.a.resume(pair.b)
    pair.b.resume(pair.a)
    Pair.wait(lambda: pair.a.connected(pair.b) and pair.b.connected(pair.a), "the heal")
    pair.sync()
    for v in (pair.a.vault, pair.b.vault):  # both files say they held: listed on both devices
        seen = devices.status(v, FIXED_NOW + timedelta(seconds=ttl + 30), ttl)
        assert [s["devices"] for s in seen["splits"]] == [["desk", "laptop"]], seen
    assert lease("b", "laptop", ttl + 40).acquire().holder == "desk"  # the earlier term keeps the lease
    assert lease("a", "desk", ttl + 50).acquire().held
    pair.sync()
    for v in (pair.a.vault, pair.b.vault):
        seen = devices.status(v, FIXED_NOW + timedelta(seconds=ttl + 60), ttl)
        assert seen["holder"]["device"] == "desk" and seen["holder"]["since"] == format_datetime(FIXED_NOW)
        assert [s["from"] for s in seen["splits"]] == [format_datetime(FIXED_NOW + timedelta(seconds=ttl + 10))]
        assert seen["conflict_copies"] == []
    assert _conflict_copies(pair.a.vault) == [] == _conflict_copies(pair.b.vault)
    assert not [rel for rel in files_of(pair.a.vault) if "conflict" in rel]
    assert files_of(pair.a.vault) == files_of(pair.b.vault)


def test_uses_on_both_sides_of_a_split_add_up(pair, tmp_path):
    a, b, saved = _setup(pair, tmp_path)
    uses = parse_note(saved["path"], (pair.a.vault / saved["path"]).read_bytes()).fields.use_count
    pair.a.pause(pair.b)
    pair.b.pause(pair.a)
    Pair.wait(lambda: not pair.a.connected(pair.b), "the split")
    moved = a.promote(saved["id"])  # device a promotes and uses it twice; device b uses it three times
    dst = moved["promoted"][0]["to"] if "promoted" in moved else moved["to"]
    for _ in range(2):
        a.touch(saved["id"])
    for _ in range(3):
        b.touch(saved["id"])
    pair.a.resume(pair.b)
    pair.b.resume(pair.a)
    Pair.wait(lambda: pair.a.connected(pair.b) and pair.b.connected(pair.a), "the heal")
    pair.sync()
    a.sync()
    b.sync()
    later = _service(pair.a.vault, tmp_path / "index-a.sqlite3", ahead=a.settings.duplicate_settle_seconds + 5)
    try:
        later.sync()  # device a, past the wait: the copy left in STM/ settles
        pair.sync()
        b.sync()
        assert _ids(pair.a.vault) == _ids(pair.b.vault) == {dst: saved["id"]}
        for vault in (pair.a.vault, pair.b.vault):
            kept = parse_note(dst, (vault / dst).read_bytes())
            assert kept.fields.use_count == uses + 5, kept.fields  # every use on either side, once
        assert _conflict_copies(pair.a.vault) == [] == _conflict_copies(pair.b.vault)
    finally:
        later.close()
        a.close()
        b.close()
