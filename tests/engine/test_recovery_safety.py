"""Start-up recovery moves notes (to their new path, back, or into .trash) and never deletes
one; it refuses journal entries that leave the vault or go through a symbolic link.
Real files, real symlinks, real hard links, the real journal format."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from conftest import assert_index_matches_rebuild, make_service

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks and hard links")

NOTE = "Use uv for Python environments"
STM, ARC = f"STM/{NOTE}.md", f"Archive/{NOTE}.md"
QUARANTINE = Path(".mnemovault/journal/quarantine")


def _entry(vault: Path, src: str, dst: str, name: str = "0a.json", **extra) -> Path:
    folder = vault / ".mnemovault" / "journal"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        json.dumps(
            {
                "src": src,
                "dst": dst,
                "reason": "archived on request",
                "id": None,
                "keys": {"status": "archived"},
                "rewrite": True,
                **extra,
            }
        ),
        encoding="utf-8",
    )
    return path


def _contents(root: Path) -> set[str]:
    """sha256 of every regular file under `root` (the journal's own files aside)."""
    return {
        hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and "journal" not in p.parts
    }


def _recover(vault: Path) -> list[str]:
    svc = make_service(vault, sync=False)  # as at start: recovery runs before the first sync
    try:
        lines = svc.recover()
        svc.sync()
        assert_index_matches_rebuild(svc)
        return lines
    finally:
        svc.close()


def _refused(vault: Path, entry: Path, lines: list[str], why: str) -> None:
    assert len(lines) == 1 and lines[0].startswith("refused the journal entry") and why in lines[0], lines
    assert not entry.exists()
    kept = json.loads((vault / QUARANTINE / entry.name).read_text(encoding="utf-8"))
    assert why in kept["quarantined"]["cause"] and "moved nothing" in kept["quarantined"]["todo"]


def test_destination_symlinked_to_its_source_is_refused_and_the_note_kept(vault):
    before = (vault / STM).read_bytes()
    (vault / "Archive" / f"{NOTE}.md").symlink_to(vault / STM)
    entry = _entry(vault, STM, ARC)
    lines = _recover(vault)
    _refused(vault, entry, lines, "symbolic link")
    assert (vault / STM).read_bytes() == before and not (vault / STM).is_symlink()
    assert (vault / ARC).is_symlink() and os.readlink(vault / ARC) == str(vault / STM)
    assert not (vault / ".trash").exists()


def test_source_through_a_symlinked_folder_is_refused(vault):
    """`Linked/` is `STM/` under another name: the two paths are one file, and unlinking the
    "second name" would delete the only copy."""
    before = (vault / STM).read_bytes()
    (vault / "Linked").symlink_to(vault / "STM", target_is_directory=True)
    entry = _entry(vault, f"Linked/{NOTE}.md", STM)
    lines = _recover(vault)
    _refused(vault, entry, lines, "symbolic link Linked")
    assert (vault / STM).read_bytes() == before


@pytest.mark.parametrize("dst", ["../outside.md", "/tmp/outside.md", "Out/outside.md"])
def test_entries_leaving_the_vault_are_refused_and_nothing_outside_is_touched(vault, tmp_path, dst):
    outside = tmp_path / "outside.md"
    outside.write_bytes((vault / STM).read_bytes())
    (vault / "Out").symlink_to(tmp_path, target_is_directory=True)
    before = _contents(vault)
    entry = _entry(vault, STM, dst)
    lines = _recover(vault)
    _refused(vault, entry, lines, "vault" if dst != "Out/outside.md" else "outside the vault")
    assert outside.read_bytes() == (vault / STM).read_bytes()
    assert _contents(vault) == before


def test_two_names_of_one_file_lose_only_the_extra_name(vault):
    os.link(vault / STM, vault / ARC)  # a crash between link and unlink
    entry = _entry(vault, STM, ARC)
    lines = _recover(vault)
    assert lines == [f"completed move of {STM} to {ARC}"]
    assert not (vault / STM).exists() and "status: archived" in (vault / ARC).read_text(encoding="utf-8")
    assert not entry.exists()


@pytest.mark.parametrize("newer", ["src", "dst"])
def test_split_copies_put_the_older_one_in_the_trash(vault, newer):
    """One note at both paths as two files (a sync split the hard link): the newer bytes end
    at the new path, the older copy in .trash, nothing unlinked."""
    src, dst = vault / STM, vault / ARC
    text = src.read_text(encoding="utf-8")
    note_id = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("id:"))
    dst.write_text(text.replace("status:", "edited: yes\nstatus:", 1), encoding="utf-8")
    old, new = (dst, src) if newer == "src" else (src, dst)
    os.utime(old, ns=(1_000_000_000, 1_000_000_000))
    old_bytes, new_bytes = old.read_bytes(), new.read_bytes()
    _entry(vault, STM, ARC, id=note_id)
    lines = _recover(vault)
    assert lines == [f"completed move of {STM} to {ARC}"], lines
    assert not src.exists()
    trashed = list((vault / ".trash").iterdir())
    assert [p.read_bytes() for p in trashed] == [old_bytes]
    assert ("edited: yes" in dst.read_text(encoding="utf-8")) == (b"edited: yes" in new_bytes)
