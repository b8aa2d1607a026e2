"""Conflict copies of mnemovault's own making merge without the person; the person's stay."""

from __future__ import annotations

import re

from conftest import FIXED_NOW, make_service

from vault_sync.dates import format_datetime
from vault_sync.note import parse_note


def _memory(vault) -> tuple:
    svc = make_service(vault)
    try:
        saved = svc.save("The release train leaves every second Tuesday at noon.")["note"]
        svc.promote(saved["id"])
        other = svc.save("Backups of the wiki run hourly to the NAS.")["note"]
    finally:
        svc.close()
    return saved, other


def test_scores_only_copy_and_index_note_copy_merge_on_the_schedule(empty_vault):
    (empty_vault / "LTM").mkdir()
    promoted, other = _memory(empty_vault)
    note = empty_vault / other["path"]
    text = note.read_text(encoding="utf-8")
    theirs = re.sub(r"(?m)^use_count: \d+", "use_count: 4", text)
    theirs = re.sub(r"(?m)^decay_score: [\d.]+", "decay_score: 0.731", theirs)
    copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-ABCDEFG.md")
    copy.write_text(theirs, encoding="utf-8")
    index = empty_vault / "LTM" / "LTM Index.md"
    index_text = index.read_text(encoding="utf-8")
    other_line = "- [[Promoted on the other device]] (promoted 2026-11-20)"
    index_copy = index.with_name("LTM Index.sync-conflict-20261120-120001-ABCDEFG.md")
    index_copy.write_text(index_text + other_line + "\n", encoding="utf-8")
    person = empty_vault / "STM" / "Mine.md"
    person.write_text("---\nid: 1\n---\nmine\n", encoding="utf-8")
    svc = make_service(empty_vault)
    try:
        assert {c["original"] for c in svc.status()["conflicts"]} == {other["path"], "LTM/LTM Index.md"}
        report = svc.run_lifecycle()
        assert len(report.get("conflicts_merged", [])) == 2, report
        assert svc.status()["conflicts"] == []
        assert not copy.exists() and not index_copy.exists()
        now_at = svc.get_memory([other["id"]])[0]["path"]  # 4 uses: promoted by the same run
        merged = parse_note(now_at, (empty_vault / now_at).read_bytes())
        assert merged.fields.use_count == 4 and merged.fields.id == other["id"]
        lines = index.read_text(encoding="utf-8").splitlines()
        assert other_line in lines and all(line in lines for line in index_text.splitlines())
        assert len([p for p in (empty_vault / ".trash").glob("*.md")]) == 2  # kept, recoverable
    finally:
        svc.close()


def test_a_copy_with_the_persons_text_or_keys_changed_stays_for_the_person(empty_vault):
    """Notes from before text_hashes: which side changed cannot be told (test_conflicts_one_side.py)."""
    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note = empty_vault / other["path"]
    note.write_text(re.sub(r"(?m)^text_hashes: .*\n", "", note.read_text(encoding="utf-8")), encoding="utf-8")
    text = note.read_text(encoding="utf-8")
    assert "text_hashes" not in text
    edited = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-AAAAAAA.md")
    edited.write_text(text.rstrip("\n") + "\n\nA line the person added there.\n", encoding="utf-8")
    keyed = note.with_name(f"{note.stem} (conflicted copy 2026-11-20).md")
    keyed.write_text(text.replace("---\n", "---\nowner: sam\n", 1), encoding="utf-8")
    before = note.read_bytes()
    svc = make_service(empty_vault)
    try:
        report = svc.run_lifecycle()
        assert "conflicts_merged" not in report
        assert {c["path"] for c in svc.status()["conflicts"]} == {
            edited.relative_to(empty_vault).as_posix(),
            keyed.relative_to(empty_vault).as_posix(),
        }
        assert edited.exists() and keyed.exists()
        assert parse_note(other["path"], note.read_bytes()).body == parse_note(other["path"], before).body
    finally:
        svc.close()


def test_resolve_all_takes_the_index_note_copy(empty_vault):
    """`conflicts resolve` no longer refuses the LTM Index as "one of your notes"."""
    (empty_vault / "LTM").mkdir()
    _memory(empty_vault)
    index = empty_vault / "LTM" / "LTM Index.md"
    copy = index.with_name("LTM Index (Conflict 2026-11-20).md")
    copy.write_text(index.read_text(encoding="utf-8") + "- [[Elsewhere]] (promoted 2026-11-21)\n", encoding="utf-8")
    svc = make_service(empty_vault)
    try:
        rel = copy.relative_to(empty_vault).as_posix()
        out = svc.resolve_conflict(rel)
        assert out["action"] == "merged" and "- [[Elsewhere]] (promoted 2026-11-21)" in index.read_text()
    finally:
        svc.close()


def test_status_counts_the_copies_merged_by_themselves(empty_vault):
    """A merge of mnemovault's own making is counted for `status`, at the service's clock."""
    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note = empty_vault / other["path"]
    copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-ABCDEFG.md")
    copy.write_text(re.sub(r"(?m)^use_count: \d+", "use_count: 3", note.read_text(encoding="utf-8")), "utf-8")
    svc = make_service(empty_vault)
    try:
        assert svc.status()["conflicts_merged"]["count"] == 0
        merged = svc.settle_conflicts()
        assert [m["conflict"] for m in merged] == [copy.relative_to(empty_vault).as_posix()]
        state = svc.status()["conflicts_merged"]
        assert state["count"] == 1 and state["last_at"] == format_datetime(FIXED_NOW)
        assert state["recent"][0]["original"] == other["path"]
        assert state["recent"][0]["copy_moved_to"].startswith(".trash/")
        assert (empty_vault / state["recent"][0]["copy_moved_to"]).is_file() and not copy.exists()
        assert svc.settle_conflicts() == [] and svc.status()["conflicts_merged"]["count"] == 1
    finally:
        svc.close()


def test_both_sides_edited_stays_listed_with_a_diff_of_the_persons_text(empty_vault):
    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note = empty_vault / other["path"]
    text = note.read_text(encoding="utf-8")
    copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-ABCDEFG.md")
    copy_text = re.sub(r"(?m)^use_count: \d+", "use_count: 7", text).rstrip("\n") + "\n\nWritten on the laptop.\n"
    copy.write_text(copy_text.replace("---\n", "---\nowner: sam\n", 1), encoding="utf-8")
    note.write_text(text.rstrip("\n") + "\n\nWritten on the desktop.\n", encoding="utf-8")
    before = note.read_bytes()
    svc = make_service(empty_vault)
    try:
        assert svc.settle_conflicts() == []
        (item,) = svc.conflicts()
        assert item["path"] == copy.relative_to(empty_vault).as_posix() and item["differs"] == "text"
        diff = item["diff"]
        assert diff[0] == f"--- {other['path']}" and diff[1] == f"+++ {item['path']}"
        assert "-Written on the desktop." in diff and "+Written on the laptop." in diff
        assert '+owner: "sam"' in diff  # the person's own key, shown
        assert not any("use_count" in line for line in diff)  # mnemovault's keys are not the person's to compare
        assert item["diff_cut"] == 0 and note.read_bytes() == before and copy.exists()
        assert svc.status()["conflicts"] == [item]  # status (HTTP, MCP) lists it with the same diff
        assert svc.status()["conflicts_merged"]["count"] == 0
    finally:
        svc.close()


def test_the_diff_is_bounded_and_says_how_much_was_left_off(empty_vault):
    from vault_sync.ops.conflict_diff import MAX_DIFF_LINES, MAX_LINE_CHARS

    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note = empty_vault / other["path"]
    text = note.read_text(encoding="utf-8")
    copy = note.with_name(f"{note.stem} (conflicted copy 2026-11-20).md")
    copy.write_text(text + "".join(f"line {i} {'x' * 400}\n" for i in range(300)), encoding="utf-8")
    svc = make_service(empty_vault)
    try:
        (item,) = svc.conflicts()
        assert len(item["diff"]) == MAX_DIFF_LINES and item["diff_cut"] > 200
        assert max(len(line) for line in item["diff"]) <= MAX_LINE_CHARS + 1
    finally:
        svc.close()


def test_a_copy_of_the_persons_own_note_is_diffed_whole(empty_vault):
    note = empty_vault / "Plans.md"
    note.write_text("---\ntags: [trip]\n---\nGo north.\n", encoding="utf-8")
    (empty_vault / "Plans [Conflict].md").write_text("---\ntags: [trip, rain]\n---\nGo north.\n", encoding="utf-8")
    svc = make_service(empty_vault)
    try:
        (item,) = svc.conflicts()
        assert item["differs"] == "text" and "+tags: [trip, rain]" in item["diff"]
        assert svc.settle_conflicts() == []
    finally:
        svc.close()


def test_a_new_conflict_copy_is_announced_once(empty_vault):
    """The event the daemon's lease holder merges on at once (bridge/server.py)."""
    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note = empty_vault / other["path"]
    svc = make_service(empty_vault)
    heard: list[tuple[str, dict]] = []
    svc.engine.events.subscribe(lambda kind, data: heard.append((kind, data)) if kind == "conflict_copy" else None)
    try:
        copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-ABCDEFG.md")
        copy.write_bytes(note.read_bytes())
        rel = copy.relative_to(empty_vault).as_posix()
        svc.engine.indexer.sync_paths([rel])
        assert heard == [("conflict_copy", {"path": rel, "original": other["path"]})]
        svc.engine.indexer.sync_paths([rel])
        svc.sync()
        assert len(heard) == 1  # known already: not announced again
    finally:
        svc.close()


def _both_edited(vault, other) -> tuple:
    note = vault / other["path"]
    base = note.read_text(encoding="utf-8")
    return note, base.rstrip("\n") + "\n\nEdited on the desktop.\n", base.rstrip("\n") + "\n\nEdited on the laptop.\n"


def test_what_this_device_last_indexed_is_not_the_common_version_winner_side(empty_vault):
    """Why "one side changed" is not decided against this device's index: the device whose
    version won the sync has indexed its own edit, so the note equals what it last knew while
    the other device's edit arrives as the copy. Both sides changed; nothing is merged."""
    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note, desktop, laptop = _both_edited(empty_vault, other)
    svc = make_service(empty_vault)
    try:
        note.write_text(desktop, encoding="utf-8")
        svc.sync()  # this device indexed its own edit
        copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-LAPTOP1.md")
        copy.write_text(laptop, encoding="utf-8")  # the other device's edit arrives as the copy
        svc.sync()
        assert svc.settle_conflicts() == [] and svc.run_lifecycle().get("conflicts_merged") is None
        assert note.read_text(encoding="utf-8") == desktop and copy.read_text(encoding="utf-8") == laptop
        assert [c["differs"] for c in svc.conflicts()] == ["text"]
    finally:
        svc.close()


def test_what_this_device_last_indexed_is_not_the_common_version_loser_side(empty_vault):
    """The device whose version lost: the sync engine renames its file to the copy (what this
    device last indexed) and puts the other edit in its place. Nothing is merged either."""
    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note, desktop, laptop = _both_edited(empty_vault, other)
    svc = make_service(empty_vault)
    try:
        note.write_text(laptop, encoding="utf-8")
        svc.sync()
        copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-LAPTOP1.md")
        note.rename(copy)
        note.write_text(desktop, encoding="utf-8")
        svc.sync()
        assert svc.settle_conflicts() == []
        assert note.read_text(encoding="utf-8") == desktop and copy.read_text(encoding="utf-8") == laptop
    finally:
        svc.close()
