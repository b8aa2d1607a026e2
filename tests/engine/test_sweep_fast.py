"""The sweep's fast path: number swaps without a YAML parse, batched writes, the index told directly.

Each shortcut must give exactly what the slow path gives: the same bytes on disk, the
same index as a rebuild, and a person's edit made meanwhile kept.
"""

from __future__ import annotations

import os
import stat
from datetime import timedelta

import pytest
import yaml
from conftest import FIXED_NOW, assert_index_matches_rebuild, make_service
from hypothesis import given
from hypothesis import strategies as st
from test_patch_props import PROPS, lines_of, note_text, split_note

import vault_sync.batch as batch
import vault_sync.ops.sweep as sweep_mod
from vault_sync.due import due_dates
from vault_sync.fmblock import YamlProblem, find_block, load_frontmatter
from vault_sync.index.sync import ScoreWrite
from vault_sync.note import checksum_of
from vault_sync.patch import PatchError, patch_frontmatter, swap_numbers
from vault_sync.rename import exchange
from vault_sync.scoring import ScoringParams


def memory(i: int, days_ago: float, extra: str = "") -> str:
    when = FIXED_NOW - timedelta(days=days_ago)
    last = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    # the due dates an earlier engine write left: they only move when the inputs do
    due = due_dates(ScoringParams(), 1 + i % 4, 1.0, when)
    dates = "".join(f"{k}: {d.isoformat()}\n" for k, d in due.items() if d is not None)
    return (
        f"---\nid: 00000000-0000-4000-8000-{i:012d}\ntags: [t{i % 3}]  # kept\ncreated: 2026-10-01T08:00:00Z\n"
        f"last_used: {last}\nuse_count: {1 + i % 4}\nstrength: 1.0\nstatus: active\n{extra}"
        f"decay_score: 0.5 # mine\nreview_priority: 0.0\n{dates}---\nMemory number {i}.\n"
    )


def stm_vault(root, n: int):
    for i in range(n):
        (root / "STM" / f"m{i:03d}.md").write_text(memory(i, 0.5 + i % 9), encoding="utf-8")


# ---------------------------------------------------------------- swap_numbers


@st.composite
def scored_note(draw):
    """A generated note with `decay_score` and `review_priority` lines put anywhere in its frontmatter."""
    text, _raw, _entries, nl = draw(note_text())
    head, close, body = split_note(text)
    opening, yaml_text = head.split(nl, 1)
    lines = lines_of(yaml_text)
    for key in ("decay_score", "review_priority"):
        number = draw(
            st.one_of(st.floats(0, 100, allow_nan=False).map(repr), st.integers(0, 9).map(str), st.just("1_000"))
        )
        comment = draw(st.sampled_from(["", " # c", "   # x: y"]))
        lines.insert(
            draw(st.integers(0, len(lines))), f"{key}:{draw(st.sampled_from([' ', '  ']))}{number}{comment}{nl}"
        )
    return opening + nl + "".join(lines) + close + body


@PROPS
@given(text=scored_note(), score=st.floats(0, 10, allow_nan=False), prio=st.floats(0, 1, allow_nan=False))
def test_swap_numbers_gives_what_a_full_patch_gives(text, score, prio):
    block = find_block(text)
    try:
        parsed, dupes = load_frontmatter(text[block.yaml_start : block.yaml_end])
    except YamlProblem:
        return
    updates = {"decay_score": score, "review_priority": prio}
    fast = swap_numbers(text, updates)
    numbers = isinstance(parsed, dict) and all(
        isinstance(parsed.get(k), (int, float)) and not isinstance(parsed.get(k), bool) for k in updates
    )
    if fast is None or dupes or not numbers:
        return  # outside the caller's precondition (the index saw a problem there)
    after, _ = load_frontmatter(fast[find_block(fast).yaml_start : find_block(fast).yaml_end])
    assert after == {**parsed, **updates}
    assert fast == patch_frontmatter(text, updates, parsed)
    assert fast[find_block(fast).yaml_end :] == text[block.yaml_end :]


def test_swap_numbers_patches_plain_numbers_and_declines_the_rest():
    text = "\ufeff---\r\nid: x\r\ndecay_score: 0.5   # c\r\nreview_priority: 1\r\n---\r\nbody\r\ndecay_score: 1\r\n"
    got = swap_numbers(text, {"decay_score": 0.25, "review_priority": 0.125})
    assert got == (
        "\ufeff---\r\nid: x\r\ndecay_score: 0.25   # c\r\nreview_priority: 0.125\r\n---\r\nbody\r\ndecay_score: 1\r\n"
    )
    declined = [
        "---\ndecay_score: '0.5'\n---\n",  # a string, not a number
        "---\ndecay_score: 0.5\n  more\n---\n",  # a value continued on the next line
        "---\ndecay_score: 0.5\ndecay_score: 0.6\n---\n",  # twice
        '---\nnote: "a\ndecay_score: 0.5\nz: y"\n---\n',  # text inside a quoted value
        "---\nother: 1\n---\n",  # not there
        "no frontmatter\n",
    ]
    for text in declined:
        assert swap_numbers(text, {"decay_score": 0.25}) is None, text


def test_a_key_line_inside_a_quoted_value_is_never_patched_as_the_key():
    # PyYAML lets a quoted value continue at column 0; the real key is a complex key
    text = '---\nnote: "first\ndecay_score: 0.5\nx: y"\n? decay_score\n: 0.5\n---\nbody\n'
    before = yaml.safe_load(text.split("---\n")[1])
    assert before["note"] == "first decay_score: 0.5 x: y"
    try:
        out = patch_frontmatter(text, {"decay_score": 0.25})
    except PatchError:
        return  # refusing is fine
    after = yaml.safe_load(out.split("---\n")[1])
    assert after["note"] == before["note"] and after["decay_score"] == 0.25


# ---------------------------------------------------------------- batched writes


def test_exchange_swaps_two_names(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("new")
    b.write_text("old")
    if not exchange(a, b):
        pytest.skip("no RENAME_EXCHANGE here")
    assert b.read_text() == "new" and a.read_text() == "old"
    with pytest.raises(OSError):
        exchange(a, tmp_path / "missing")


def test_large_sweep_in_chunks_matches_a_rebuild_and_leaves_no_temp_files(empty_vault, monkeypatch):
    monkeypatch.setattr(batch, "SYNCFS_FROM", 10)
    stm_vault(empty_vault, 130)
    svc = make_service(empty_vault, quiet_seconds=0, sweep_chunk=40)
    parses = []
    monkeypatch.setattr(sweep_mod, "parse_note", lambda *a: parses.append(a) or pytest.fail("fast path parsed a note"))
    report = svc.sweep()
    assert report["written"] == 130 and not report["errors"]
    assert parses == []  # every note went by the number swap
    assert [n for n in os.listdir(empty_vault / "STM") if n.startswith(".")] == []  # old copies deleted
    for i in (0, 77, 129):
        text = (empty_vault / "STM" / f"m{i:03d}.md").read_text(encoding="utf-8")
        assert "tags: [t%d]  # kept" % (i % 3) in text and "decay_score: 0.5 # mine" not in text
        assert text.endswith(f"---\nMemory number {i}.\n")
    assert_index_matches_rebuild(svc)
    assert svc.sweep()["written"] == 0
    svc.close()


def test_a_note_with_a_problem_takes_the_full_path_and_the_index_still_matches(empty_vault, monkeypatch):
    stm_vault(empty_vault, 3)
    odd = empty_vault / "STM" / "odd.md"
    odd.write_text(
        memory(9, 2, extra="decay_score_note: fine\n").replace("review_priority: 0.0", "review_priority: 7"),
        encoding="utf-8",
    )
    svc = make_service(empty_vault, quiet_seconds=0)
    assert svc.store.query("SELECT cause FROM problems WHERE path='STM/odd.md'")  # out of range: a warning
    parsed = []
    real = sweep_mod.parse_note
    monkeypatch.setattr(sweep_mod, "parse_note", lambda rel, data: parsed.append(rel) or real(rel, data))
    assert svc.sweep()["written"] == 4
    assert parsed == ["STM/odd.md"]
    assert not svc.store.query("SELECT cause FROM problems WHERE path='STM/odd.md'")  # fixed by the write
    assert_index_matches_rebuild(svc)
    svc.close()


def test_record_scores_rereads_a_row_that_moved_on(empty_vault):
    stm_vault(empty_vault, 2)
    svc = make_service(empty_vault, quiet_seconds=0)
    path = empty_vault / "STM" / "m001.md"
    new = path.read_bytes().replace(b"decay_score: 0.5", b"decay_score: 0.25")
    path.write_bytes(new)
    st = path.stat()
    stale = ScoreWrite(
        "STM/m001.md", None, "not-what-the-index-holds", checksum_of(new), st.st_mtime_ns, st.st_size, 0.25, 0.0
    )
    report = svc.indexer.record_scores([stale])
    assert svc.store.note("STM/m001.md")["decay_score"] == 0.25  # read from the file, not trusted
    assert report.updated == 1
    assert_index_matches_rebuild(svc)
    svc.close()


@pytest.mark.parametrize("syncfs_from", [2, 1000])  # chunks flushed by syncfs / by an fsync per file
def test_old_copies_are_reused_only_where_no_one_else_can_reach_them(empty_vault, tmp_path, monkeypatch, syncfs_from):
    """A swapped-out copy takes a later note's bytes only if it is a file with one name, the
    same owner, and no other open file: else a writer holding it, or a second name, would
    reach into the note we put it in."""
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    probe = os.open(tmp_path / "a", os.O_RDWR)
    try:
        leases = batch.sole_holder(probe)
    finally:
        os.close(probe)
    if not exchange(tmp_path / "a", tmp_path / "b") or not leases or (syncfs_from == 2 and not batch.syncfs(tmp_path)):
        pytest.skip("no RENAME_EXCHANGE, file leases or syncfs here: old copies are never reused")
    monkeypatch.setattr(batch, "SYNCFS_FROM", syncfs_from)
    folder = empty_vault / "STM"
    for i in range(12):  # bodies of different lengths: a reused copy is often longer
        (folder / f"m{i:03d}.md").write_text(
            memory(i, 0.5 + i % 9).replace("Memory number", "Memory" + " long" * (i % 5) + " number"), encoding="utf-8"
        )
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    held = os.open(folder / "m000.md", os.O_RDWR)  # a writer that keeps the note open
    other_name = tmp_path / "elsewhere.md"
    os.link(folder / "m001.md", other_name)  # a second name for m001
    as_root = os.geteuid() == 0
    if as_root:
        os.chown(folder / "m002.md", 12345, 12345)
    os.chmod(folder / "m004.md", 0o600)  # takes m003's copy (0644): must stay private
    reused = []
    real = batch.sole_holder
    monkeypatch.setattr(batch, "sole_holder", lambda fd: reused.append(real(fd)) or reused[-1])
    flushed = []  # per fsynced file: is it exactly what was written (a longer old copy already cut)?
    real_fsync = os.fsync

    def fsync(fd):
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            flushed.append(info.st_size == os.lseek(fd, 0, os.SEEK_CUR))
        return real_fsync(fd)

    monkeypatch.setattr(batch.os, "fsync", fsync)
    svc = make_service(empty_vault, quiet_seconds=0, sweep_chunk=4)
    try:
        assert svc.sweep()["written"] == 12
        os.pwrite(held, b"GARBAGE", 0)  # lands in m000's old copy, wherever that went
    finally:
        os.close(held)
    assert True in reused  # the path under test ran
    assert all(flushed) and (flushed or syncfs_from == 2)
    for name, old in before.items():
        text = (folder / name).read_bytes()
        assert b"GARBAGE" not in text
        assert text.split(b"---\n")[2] == old.split(b"---\n")[2]  # the body exactly, nothing left over
        if as_root and name != "m002.md":
            assert (os.stat(folder / name).st_uid, os.stat(folder / name).st_gid) == (0, 0)
    assert other_name.read_bytes() == before["m001.md"]  # the second name still holds m001's old bytes
    assert os.stat(folder / "m004.md").st_mode & 0o777 == 0o600
    assert [n for n in os.listdir(folder) if n.startswith(".")] == []
    assert_index_matches_rebuild(svc)
    svc.close()


@pytest.mark.parametrize("chunk", [500, 2])
@pytest.mark.parametrize("moment", ["_synced_devices", "exchange"])
def test_a_keystroke_during_the_sweep_is_kept(empty_vault, monkeypatch, moment, chunk):
    """Typed after we staged the note (the re-read finds it: checked with plain rename, as on
    macOS), or after that last look (found in the copy the swap replaced, when it is deleted
    or, in chunks, before it is reused): either way the line stays and the new score is applied."""
    monkeypatch.setattr(batch, "SYNCFS_FROM", 1)
    stm_vault(empty_vault, 5)
    svc = make_service(
        empty_vault, quiet_seconds=0, sweep_chunk=chunk
    )  # 2: m003's old copy is checked before m004 reuses it
    target = empty_vault / "STM" / "m003.md"
    if moment == "exchange" and not batch.exchange(target, target):
        pytest.skip("no RENAME_EXCHANGE here")
    if moment != "exchange":
        monkeypatch.setattr(batch, "exchange", lambda src, dst: False)
    real = getattr(batch, moment)
    typed = []

    def type_then(*args):
        ours = (
            str(args[1]) == str(target) if moment == "exchange" else any(str(i.target) == str(target) for i in args[0])
        )
        if not typed and ours:
            typed.append(1)
            with open(target, "a", encoding="utf-8") as fh:  # in place, as Obsidian saves
                fh.write("Typed at the worst moment.\n")
        return real(*args)

    monkeypatch.setattr(batch, moment, type_then)
    assert svc.sweep()["written"] == 5
    text = target.read_text(encoding="utf-8")
    assert typed and text.endswith("Memory number 3.\nTyped at the worst moment.\n")
    assert "decay_score: 0.5 # mine" not in text
    assert [n for n in os.listdir(empty_vault / "STM") if n.startswith(".")] == []
    assert_index_matches_rebuild(svc)
    svc.close()
