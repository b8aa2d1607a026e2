"""Two devices through real Syncthing (Debian's package, two instances on loopback): a memory's
id never changes because Syncthing delivered a move as a create and a delete, a promotion
split from a use on the other side settles to one memory with the uses of both sides added,
and a split longer than the lease makes no conflict copy of the lease (one file per device)
and shows in `status`."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from conftest import FIXED_NOW
from syncthing_pair import BINARY, Pair, files_of
from syncthing_util import conflict_copies, heal, ids_of, setup_pair, split, split_promote_heal_settle, wait_indexed

from vault_sync import devices
from vault_sync.dates import format_datetime
from vault_sync.lease import Lease
from vault_sync.note import parse_note

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BINARY is None, reason="syncthing is not installed (apt-get install syncthing)"),
]


@pytest.fixture
def pair(tmp_path):
    p = Pair(tmp_path)
    yield p
    p.stop()


def test_a_promotion_keeps_the_id_on_the_other_device(pair, tmp_path):
    a, b, saved = setup_pair(pair, tmp_path)
    watcher = b.start_watcher(reconcile_interval=600.0)
    try:
        moved = a.promote(saved["id"])
        dst = moved["promoted"][0]["to"] if "promoted" in moved else moved["to"]
        pair.sync()  # Syncthing: "new file in LTM/", then "file in STM/ deleted"
        wait_indexed(b, watcher, saved["id"], dst)
        assert b.touch(saved["id"])["note"]["path"] == dst  # the id an assistant stored still works
        pair.sync()
        assert ids_of(pair.a.vault) == ids_of(pair.b.vault) == {dst: saved["id"]}
        assert conflict_copies(pair.a.vault) == [] == conflict_copies(pair.b.vault)
        assert files_of(pair.a.vault) == files_of(pair.b.vault)
    finally:
        b.runtime.stop_watcher()
        a.close()
        b.close()


def test_a_promotion_split_from_a_use_settles_to_one_memory(pair, tmp_path):
    a, b, saved = setup_pair(pair, tmp_path)
    uses = parse_note(saved["path"], (pair.a.vault / saved["path"]).read_bytes()).fields.use_count
    dst, later = split_promote_heal_settle(pair, tmp_path, a, b, saved, uses_a=0, uses_b=2)
    try:
        ids = ids_of(pair.a.vault)
        assert ids == ids_of(pair.b.vault) == {dst: saved["id"]}, ids
        kept = parse_note(dst, (pair.a.vault / dst).read_bytes())
        assert kept.fields.use_count == uses + 2  # the uses made on b during the split are kept
        assert conflict_copies(pair.a.vault) == [] == conflict_copies(pair.b.vault)
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
    split(pair)
    for seconds in (300, 600):
        assert lease("a", "desk", seconds).acquire().held
    assert lease("b", "laptop", ttl + 10).acquire().held  # the desk's term expired on this side
    assert lease("a", "desk", ttl + 20).acquire().held
    heal(pair)
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
    assert conflict_copies(pair.a.vault) == [] == conflict_copies(pair.b.vault)
    assert not [rel for rel in files_of(pair.a.vault) if "conflict" in rel]
    assert files_of(pair.a.vault) == files_of(pair.b.vault)


def test_uses_on_both_sides_of_a_split_add_up(pair, tmp_path):
    a, b, saved = setup_pair(pair, tmp_path)
    uses = parse_note(saved["path"], (pair.a.vault / saved["path"]).read_bytes()).fields.use_count
    # device a promotes and uses it twice; device b uses it three times
    dst, later = split_promote_heal_settle(pair, tmp_path, a, b, saved, uses_a=2, uses_b=3)
    try:
        assert ids_of(pair.a.vault) == ids_of(pair.b.vault) == {dst: saved["id"]}
        for vault in (pair.a.vault, pair.b.vault):
            kept = parse_note(dst, (vault / dst).read_bytes())
            assert kept.fields.use_count == uses + 5, kept.fields  # every use on either side, once
        assert conflict_copies(pair.a.vault) == [] == conflict_copies(pair.b.vault)
    finally:
        later.close()
        a.close()
        b.close()
