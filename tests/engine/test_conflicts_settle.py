"""Conflict copies of mnemovault's own making merge without the person; the person's stay."""

from __future__ import annotations

import re

from conftest import make_service

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
    (empty_vault / "LTM").mkdir()
    _, other = _memory(empty_vault)
    note = empty_vault / other["path"]
    text = note.read_text(encoding="utf-8")
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
