"""Atomic, conditional writes (invariant 3): real files, real renames, no mocks."""

from __future__ import annotations

import os
import stat

import pytest

from vault_sync.errors import UnsafePath, WriteConflict
from vault_sync.writer import create_exclusive, is_temp_file, temp_name, update_file, write_atomic

OLD = b"---\nid: a\ndecay_score: 0.5\n---\nbody\n"


def set_score(value: str):
    def transform(data: bytes) -> bytes:
        return data.replace(b"decay_score: 0.5", b"decay_score: " + value.encode())

    return transform


def leftovers(folder) -> list[str]:
    return [n for n in os.listdir(folder) if is_temp_file(n)]


def test_update_writes_atomically_by_rename(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(OLD)
    os.chmod(p, 0o640)
    before = os.stat(p)
    res = update_file(p, OLD, set_score("0.25"))
    after = os.stat(p)
    assert res.written and not res.retried
    assert p.read_bytes() == OLD.replace(b"0.5", b"0.25") == res.data
    assert after.st_ino != before.st_ino  # a new file renamed over the old one, not an in-place write
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert leftovers(tmp_path) == [] and os.listdir(tmp_path) == ["n.md"]


def test_nothing_to_change_writes_nothing(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(OLD)
    ino = os.stat(p).st_ino
    assert not update_file(p, OLD, lambda d: None).written
    assert not update_file(p, OLD, lambda d: d).written
    assert os.stat(p).st_ino == ino and p.read_bytes() == OLD


def test_edit_between_read_and_write_is_kept_and_change_reapplied(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(OLD)
    seen = p.read_bytes()
    edited = b"---\nid: a\ndecay_score: 0.5\n---\nbody\nA line the person just typed.\n"
    p.write_bytes(edited)  # the person saves in Obsidian after we read
    calls = []

    def transform(data: bytes) -> bytes:
        calls.append(data)
        return set_score("0.25")(data)

    res = update_file(p, seen, transform)
    assert res.written and res.retried
    assert calls == [seen, edited]
    assert p.read_bytes() == edited.replace(b"0.5", b"0.25")
    assert leftovers(tmp_path) == []


def test_an_edit_landing_after_the_last_look_is_put_back_with_our_change(tmp_path, monkeypatch):
    """The window between the final re-read and the rename: the person's bytes go to the copy
    we replace; the swap lets us find them there and keep them."""
    import vault_sync.writer as writer

    p = tmp_path / "n.md"
    p.write_bytes(OLD)
    typed = b"---\nid: a\ndecay_score: 0.5\n---\nbody\nTyped at the worst moment.\n"
    real = writer.exchange
    fired = []

    def swap_after_a_keystroke(src, dst):
        if not fired:
            fired.append(1)
            with open(dst, "wb") as fh:  # in place, as Obsidian saves
                fh.write(typed)
        return real(src, dst)

    monkeypatch.setattr(writer, "exchange", swap_after_a_keystroke)
    if not real(tmp_path / "n.md", tmp_path / "n.md"):  # swapping a name with itself: a no-op probe
        pytest.skip("no RENAME_EXCHANGE here")
    res = update_file(p, OLD, set_score("0.25"))
    assert fired and res.written and res.retried
    assert p.read_bytes() == typed.replace(b"0.5", b"0.25")  # their line kept, our change applied
    assert leftovers(tmp_path) == []


def test_last_look_before_rename_can_abandon_the_write(tmp_path):
    """update_file re-reads once more after the (slow) temp write; a refusal there leaves all as it was."""
    p = tmp_path / "n.md"
    p.write_bytes(OLD)

    def check() -> None:
        assert any(is_temp_file(n) for n in os.listdir(tmp_path))  # the temp file is complete
        raise WriteConflict("changed")

    with pytest.raises(WriteConflict):
        write_atomic(p, b"new", check=check)
    assert p.read_bytes() == OLD and os.listdir(tmp_path) == ["n.md"]


def test_keeps_changing_gives_up_and_leaves_file_untouched(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(OLD)
    versions = iter(OLD + b"edit %d\n" % i for i in range(100))
    last = {}

    def transform(data: bytes) -> bytes:
        last["disk"] = next(versions)
        p.write_bytes(last["disk"])  # someone writes again every time we look
        return set_score("0.25")(data)

    with pytest.raises(WriteConflict):
        update_file(p, OLD, transform, attempts=3)
    assert p.read_bytes() == last["disk"]
    assert leftovers(tmp_path) == []


def test_note_vanishing_is_a_conflict(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(OLD)
    seen = p.read_bytes()
    p.unlink()
    with pytest.raises(WriteConflict):
        update_file(p, seen, set_score("0.25"))
    assert not p.exists() and os.listdir(tmp_path) == []


def test_note_vanishing_during_the_write_is_a_conflict(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(OLD)

    def transform(data: bytes) -> bytes:
        if p.exists():
            p.unlink()
        return set_score("0.25")(data)

    with pytest.raises(WriteConflict):
        update_file(p, OLD, transform)
    assert os.listdir(tmp_path) == []


def test_transform_error_leaves_file_alone(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(OLD)

    def boom(data: bytes) -> bytes:
        raise ValueError("cannot patch")

    with pytest.raises(ValueError):
        update_file(p, OLD, boom)
    assert p.read_bytes() == OLD and os.listdir(tmp_path) == ["n.md"]


def test_symlinked_note_is_refused_and_its_target_unchanged(tmp_path):
    """No write follows a link (issue 38): the walker never indexes a linked note, so one met
    at write time was planted since, maybe pointing outside the vault."""
    real = tmp_path / "real.md"
    real.write_bytes(OLD)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    with pytest.raises(UnsafePath, match="link.md is a symbolic link"):
        update_file(link, OLD, set_score("0.25"))
    assert link.is_symlink() and real.read_bytes() == OLD
    assert sorted(os.listdir(tmp_path)) == ["link.md", "real.md"]  # no temp file left


def test_create_exclusive_refuses_an_existing_name(tmp_path):
    p = tmp_path / "new.md"
    create_exclusive(p, b"first")
    assert p.read_bytes() == b"first"
    with pytest.raises(FileExistsError):
        create_exclusive(p, b"second")
    assert p.read_bytes() == b"first"
    assert os.listdir(tmp_path) == ["new.md"]


def test_write_atomic_new_file_and_mode(tmp_path):
    p = tmp_path / "w.md"
    write_atomic(p, b"x", 0o600)
    assert p.read_bytes() == b"x" and stat.S_IMODE(os.stat(p).st_mode) == 0o600
    assert leftovers(tmp_path) == []


def test_temp_files_are_dot_prefixed_and_recognised(tmp_path):
    t = temp_name(tmp_path / "Some note.md")
    assert t.parent == tmp_path and t.name.startswith(".") and is_temp_file(t.name)
    assert not is_temp_file("Some note.md") and not is_temp_file(".obsidian")
    long = temp_name(tmp_path / ("é" * 120 + ".md"))  # 240 bytes of name
    assert len(long.name.encode()) <= 255
    long.write_bytes(b"ok")  # the file system accepts it
