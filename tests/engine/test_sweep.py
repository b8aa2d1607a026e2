"""Sweep end to end: scores written surgically, only when changed, bad notes left alone."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import FIXED_NOW, ROOT, make_service

from vault_sync.due import due_dates
from vault_sync.fmblock import find_block, load_yaml

NOTE = """---
id: 11111111-2222-3333-4444-555555555555
tags: [security, jwt]  # person's comment
created: 2026-11-10T08:00:00Z
last_used: {last_used}
use_count: 6
strength: 1.0
status: active
decay_score: 0.5   # a comment
review_priority: 0.0
source: "standup"
---
The auth service signs JWTs with RS256.
"""


def _frontmatter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8-sig")
    b = find_block(text)
    return load_yaml(text[b.yaml_start : b.yaml_end])


def test_sweep_writes_one_line_and_keeps_the_comment(empty_vault):
    note = empty_vault / "STM" / "jwt.md"
    last_used = (FIXED_NOW - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    note.write_text(NOTE.format(last_used=last_used), encoding="utf-8")
    before = note.read_text(encoding="utf-8").splitlines()
    svc = make_service(empty_vault, decay_model="exponential")
    report = svc.sweep()
    after = note.read_text(encoding="utf-8").splitlines()
    changed = [d for d in difflib.ndiff(before, after) if d[:2] in ("- ", "+ ")]
    # the score line changes in place; the due dates are added, solved from the inputs
    due = due_dates(svc.params, 6, 1.0, FIXED_NOW - timedelta(days=2))
    assert changed == [
        "- decay_score: 0.5   # a comment",
        "+ decay_score: 1.846   # a comment",
        f"+ review_on: {due['review_on']}",
        f"+ archive_on: {due['archive_on']}",
    ]
    assert report["written"] == 1
    # the index follows the write
    assert svc.store.note("STM/jwt.md")["decay_score"] == pytest.approx(1.846)
    # a second sweep right after writes nothing
    assert svc.sweep()["written"] == 0
    svc.close()


def test_precision_setting_controls_written_digits(empty_vault):
    note = empty_vault / "STM" / "jwt.md"
    last_used = (FIXED_NOW - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    note.write_text(NOTE.format(last_used=last_used), encoding="utf-8")
    svc = make_service(empty_vault, decay_model="exponential", score_precision=2)
    svc.sweep()
    assert "decay_score: 1.85   # a comment" in note.read_text(encoding="utf-8")
    svc.close()


def _owned_lines_only_changed(before: bytes, after: bytes) -> bool:
    """Every line that differs is an owned-key line of the frontmatter."""
    b, a = before.splitlines(keepends=True), after.splitlines(keepends=True)
    owned = (
        b"decay_score:",
        b"review_priority:",
        b"review_on:",
        b"archive_on:",
        b"id:",
        b"created:",
        b"last_used:",
        b"use_count:",
        b"strength:",
        b"status:",
    )
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=b, b=a, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for line in b[i1:i2] + a[j1:j2]:
            if not line.startswith(owned):
                return False
    return True


def test_sweep_of_sample_vault_is_byte_identical_outside_owned_keys(vault):
    originals = {p: p.read_bytes() for p in vault.rglob("*.md")}
    later = FIXED_NOW + timedelta(days=3)  # every score moves
    svc = make_service(vault, now=later)
    report = svc.sweep()
    assert report["written"] > 20
    for path, before in originals.items():
        after = path.read_bytes()
        if "STM" not in path.parts:
            assert after == before, f"{path.name} is not a memory and must not change"
            continue
        assert _owned_lines_only_changed(before, after), path.name
        assert after.endswith(b"\n")
        if b"\r\n" in before:
            assert after.count(b"\r\n") == after.count(b"\n"), "CRLF kept"
    crlf = [p for p in originals if b"\r\n" in originals[p]]
    assert crlf and crlf[0].read_bytes() != originals[crlf[0]]
    commented = [p for p in originals if b"# boosted" in originals[p]]
    assert commented and b"# boosted" in commented[0].read_bytes()
    assert svc.sweep()["written"] == 0
    svc.close()


def test_sample_vault_is_already_swept_at_its_reference_now(service):
    assert service.sweep()["written"] == 0


def test_quiet_notes_are_skipped_and_counted(empty_vault):
    note = empty_vault / "STM" / "jwt.md"
    note.write_text(NOTE.format(last_used="2026-11-01T00:00:00Z"), encoding="utf-8")
    svc = make_service(empty_vault, quiet_seconds=60)
    report = svc.sweep()
    assert report["quiet"] == 1 and report["written"] == 0
    old = note.stat().st_mtime - 120
    os.utime(note, (old, old))
    assert svc.sweep()["written"] == 1
    svc.close()


BAD = {
    "malformed.md": b"---\nuse_count: [1, 2\n---\nbody\n",
    "unclosed.md": b"---\nuse_count: 2\nbody without end\n",
    "latin1.md": "---\nuse_count: 2\n---\ncaf\xe9\n".encode("latin-1"),
    "empty.md": b"",
    "binary.md": b"\x00\x01\x02\x03PNG\x00" * 100,
    "lots.md": b"---\nid: a\nuse_count: lots\nlast_used: 2026-11-01T00:00:00Z\n---\nx\n",
    "strong.md": b"---\nid: b\nstrength: 7\nlast_used: 2026-11-01T00:00:00Z\n---\nx\n",
}


def test_bad_notes_are_reported_and_never_written(empty_vault):
    for name, data in BAD.items():
        (empty_vault / "STM" / name).write_bytes(data)
    (empty_vault / "STM" / "huge.md").write_bytes(b"---\nid: h\n---\n" + b"word " * 2_100_000)
    (empty_vault / "STM" / "stringtags.md").write_bytes(
        b'---\nid: t\ntags: "a, b"\nlast_used: 2026-11-19T00:00:00Z\n---\nx\n'
    )
    before = {p.name: p.read_bytes() for p in (empty_vault / "STM").iterdir()}
    svc = make_service(empty_vault)
    report = svc.sweep()
    status = svc.status()
    causes = {p["path"].split("/")[-1]: p["cause"] for p in status["problems"]}
    assert "malformed YAML" in causes["malformed.md"]
    assert "never closes" in causes["unclosed.md"]
    assert "UTF-8" in causes["latin1.md"]
    assert "binary" in causes["binary.md"]
    assert "lots" in causes["lots.md"]
    assert "strength" in causes["strong.md"] and "7" in causes["strong.md"]
    assert "too large" in causes["huge.md"]
    assert "two tags" not in causes.get("stringtags.md", "")  # a warning, not blocking
    for name, data in before.items():
        if name in ("stringtags.md", "empty.md"):
            continue
        assert (empty_vault / "STM" / name).read_bytes() == data, f"{name} must stay untouched"
    invalid = {i["path"].split("/")[-1] for i in report["invalid"]}
    assert {"malformed.md", "lots.md", "strong.md", "huge.md", "binary.md"} <= invalid
    svc.close()


def test_string_tags_read_as_two_tags_with_a_warning(empty_vault):
    (empty_vault / "STM" / "t.md").write_bytes(b'---\nid: t\ntags: "a, b"\nlast_used: 2026-11-19T00:00:00Z\n---\nx\n')
    svc = make_service(empty_vault)
    row = svc.store.note("STM/t.md")
    assert sorted(svc.store.tags_of(row["rowid"])) == ["a", "b"]
    assert row["writable"] == 1
    assert any(not p["blocking"] for p in svc.status()["problems"])
    svc.close()


def test_note_without_frontmatter_in_stm_becomes_a_memory(empty_vault):
    note = empty_vault / "STM" / "plain.md"
    note.write_text("Just a thought I had.\n", encoding="utf-8")
    svc = make_service(empty_vault)
    svc.sweep()
    fm = _frontmatter(note)
    assert fm["use_count"] == 1 and fm["status"] == "active" and len(str(fm["id"])) == 36
    assert note.read_text(encoding="utf-8").endswith("---\nJust a thought I had.\n")
    svc.close()


def test_cli_sweep_and_status_json(empty_vault, tmp_path):
    note = empty_vault / "STM" / "jwt.md"
    note.write_text(NOTE.format(last_used="2026-11-01T00:00:00Z"), encoding="utf-8")
    env = dict(
        os.environ,
        MNEMOVAULT_VAULT=str(empty_vault),
        MNEMOVAULT_DECAY_MODEL="exponential",
        MNEMOVAULT_QUIET_SECONDS="0",
    )
    out = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "sweep", "--json"], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert '"written": 1' in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "status", "--json"], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0 and '"stm": 1' in out.stdout
    bad = dict(env, MNEMOVAULT_DECAY_MODEL="linear")
    out = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "status"], env=bad, capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 2
    assert "decay_model" in out.stderr and "power_law" in out.stderr
