"""Uses made on two devices during a network split add up after the heal, each counted once:
through the conflict-copy merge the daemon runs, and through a move that never finished."""

from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path

from conftest import make_service

from vault_sync.dates import utc_now
from vault_sync.note import parse_note
from vault_sync.uses import merge_updates

SETTLE = 600.0
COPY_SUFFIX = ".sync-conflict-20261120-120000-ABCDEFG.md"


def _device(vault: Path, name: str, **overrides):
    """A service on one device: its id read from that device's config folder (lease.device_id)."""
    config = vault.parent / f"{vault.name}-config"
    config.mkdir(exist_ok=True)
    (config / "device_id").write_text(name + "\n", encoding="utf-8")
    svc = make_service(vault, **overrides)
    svc.runtime.know_device(config)
    return svc


def _split(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """One memory (use_count 1, no per-device map), then the vault copied to a second device."""
    a = tmp_path / "device-a"
    for folder in ("STM", "LTM", ".obsidian"):
        (a / folder).mkdir(parents=True)
    svc = make_service(a)
    try:
        saved = svc.save("The staging cluster is rebuilt from Terraform every Sunday night.")["note"]
    finally:
        svc.close()
    assert "uses_by_device" not in (a / saved["path"]).read_text(encoding="utf-8")
    b = tmp_path / "device-b"
    shutil.copytree(a, b)
    return a, b, saved["path"], saved["id"]


def _touch(vault: Path, device: str, mid: str, times: int) -> None:
    svc = _device(vault, device)
    try:
        for _ in range(times):
            svc.touch(mid)
    finally:
        svc.close()


def _read(vault: Path, svc, mid: str):
    rel = svc.get_memory([mid])[0]["path"]
    return parse_note(rel, (vault / rel).read_bytes())


def _heal_with_copy(vault: Path, rel: str, copy_bytes: bytes, suffix: str = COPY_SUFFIX) -> Path:
    """What the sync engine leaves at the heal: its own version kept, the other as a copy."""
    copy = vault / (rel[:-3] + suffix)
    copy.write_bytes(copy_bytes)
    return copy


def test_touches_on_two_devices_add_up_when_the_conflict_copy_merges(tmp_path):
    a, b, rel, mid = _split(tmp_path)
    _touch(a, "device-a", mid, 2)
    _touch(b, "device-b", mid, 3)
    a_text = (a / rel).read_text(encoding="utf-8")
    assert "uses_by_device: {base: 1, device-a: 2}\n" in a_text  # one line, beside use_count
    copy = _heal_with_copy(b, rel, (a / rel).read_bytes())
    svc = _device(b, "device-b")
    try:
        report = svc.run_lifecycle()  # the daemon's schedule: settle_conflicts
        assert len(report.get("conflicts_merged", [])) == 1, report
        assert not copy.exists()
        merged = _read(b, svc, mid)
        assert merged.fields.use_count == 6  # 1 + 2 + 3 (the larger count would be 4)
        assert merged.fields.uses_by_device == {"base": 1, "device-a": 2, "device-b": 3}
        assert svc.get_memory([mid])[0]["use_count"] == 6  # the index reads the total
    finally:
        svc.close()


def test_merging_twice_or_a_version_with_itself_counts_nothing_again(tmp_path):
    a, b, rel, mid = _split(tmp_path)
    _touch(a, "device-a", mid, 2)
    _touch(b, "device-b", mid, 3)
    a_bytes = (a / rel).read_bytes()
    _heal_with_copy(b, rel, a_bytes)
    svc = _device(b, "device-b")
    try:
        svc.run_lifecycle()
        at = svc.get_memory([mid])[0]["path"]
        once = (b / at).read_bytes()
        # the same copy delivered again, and a copy of the merged note itself
        _heal_with_copy(b, at, a_bytes)
        _heal_with_copy(b, at, once, ".sync-conflict-20261120-120500-HIJKLMN.md")
        svc.sync()
        for row in svc.status()["conflicts"]:
            svc.resolve_conflict(row["path"])
        assert svc.status()["conflicts"] == []
        again = _read(b, svc, mid)
        assert again.fields.use_count == 6 and again.fields.uses_by_device == {
            "base": 1,
            "device-a": 2,
            "device-b": 3,
        }
    finally:
        svc.close()
    note = parse_note(at, once)
    mine = (note.fields.use_count, note.fields.uses_by_device)
    assert merge_updates(mine, mine) == {}


def test_a_note_without_the_map_merges_as_before(tmp_path):
    a, b, rel, mid = _split(tmp_path)
    text = (b / rel).read_text(encoding="utf-8")
    (b / rel).write_text(text.replace("use_count: 1", "use_count: 3"), encoding="utf-8")  # by hand
    copy = _heal_with_copy(b, rel, text.replace("use_count: 1", "use_count: 4").encode())
    svc = _device(b, "device-b")
    try:
        svc.resolve_conflict(copy.relative_to(b).as_posix())
        merged = (b / rel).read_text(encoding="utf-8")
        assert "use_count: 4\n" in merged and "uses_by_device" not in merged  # the larger count, nothing more
    finally:
        svc.close()


def test_a_review_is_not_a_use_and_each_use_counts_once(tmp_path):
    a, b, rel, mid = _split(tmp_path)
    svc = _device(a, "device-a")
    try:
        svc.observe([mid], ["ops"])  # a use in a context
        svc.review_memory(mid, "remember")  # a review: not a use
        svc.review_memory(mid, "remember")
    finally:
        svc.close()
    _touch(b, "device-b", mid, 2)
    copy = _heal_with_copy(b, rel, (a / rel).read_bytes())
    svc = _device(b, "device-b")
    try:
        svc.resolve_conflict(copy.relative_to(b).as_posix())
        merged = _read(b, svc, mid)
        assert merged.fields.use_count == 4  # 1 + 1 on A + 2 on B; the reviews add nothing
        assert merged.fields.uses_by_device == {"base": 1, "device-a": 1, "device-b": 2}
        assert merged.fields.review_count == 1
    finally:
        svc.close()


def test_a_count_edited_by_hand_is_kept_as_base(tmp_path):
    a, _, rel, mid = _split(tmp_path)
    _touch(a, "device-a", mid, 2)
    text = (a / rel).read_text(encoding="utf-8")
    (a / rel).write_text(text.replace("use_count: 3", "use_count: 10"), encoding="utf-8")
    _touch(a, "device-a", mid, 1)
    note = parse_note(rel, (a / rel).read_bytes())
    assert note.fields.use_count == 11 and note.fields.uses_by_device == {"base": 8, "device-a": 3}


def _settle_service(vault: Path, device: str):
    """A clock at real time plus the wait: the wait is measured from the file's real ctime."""
    svc = _device(vault, device, sync=False, duplicate_settle_seconds=SETTLE)
    svc.engine.clock.source = lambda: utc_now() + timedelta(seconds=SETTLE + 5)
    return svc


def test_touches_on_two_devices_add_up_when_a_move_that_never_finished_settles(tmp_path):
    a, b, rel, mid = _split(tmp_path)
    svc = _device(a, "device-a")
    try:
        svc.promote(mid)
        dst = svc.get_memory([mid])[0]["path"]
        assert dst.startswith("LTM/")
        for _ in range(2):
            svc.touch(mid)
    finally:
        svc.close()
    _touch(b, "device-b", mid, 3)  # B used it in STM/ during the split
    # the heal: A's promoted note arrives on B; B's changed STM note outlived A's delete
    (b / dst).write_bytes((a / dst).read_bytes())
    os.utime(b / dst)
    svc = _settle_service(b, "device-b")
    try:
        report = svc.sync()
        assert any("left behind by a move" in line for line in report["id_fixes"]), report["id_fixes"]
        assert not (b / rel).exists()
        kept = parse_note(dst, (b / dst).read_bytes())
        assert kept.fields.id == mid and kept.fields.use_count == 6  # 1 + 2 + 3
        assert kept.fields.uses_by_device == {"base": 1, "device-a": 2, "device-b": 3}
    finally:
        svc.close()
