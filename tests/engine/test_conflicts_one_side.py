"""A conflict copy where only one side changed the person's text merges by itself, that side's
text kept, told by the notes' text_hashes (vault_sync/text_hashes.py); both sides changed stays."""

from __future__ import annotations

import re

from conftest import make_service

from vault_sync.note import parse_note
from vault_sync.text_hashes import kept_side, recorded, text_hash


def _saved(vault) -> dict:
    (vault / "LTM").mkdir()
    svc = make_service(vault)
    try:
        return svc.save("Backups of the wiki run hourly to the NAS in the basement.")["note"]
    finally:
        svc.close()


def _used_elsewhere(text: str) -> str:
    """The same note after one use on the laptop (what its daemon writes)."""
    text = re.sub(r"(?m)^use_count: \d+", "use_count: 2", text)
    return text.replace("use_count: 2\n", "use_count: 2\nuses_by_device: {base: 1, laptop: 1}\n", 1)


def test_the_person_changed_the_copy_and_this_side_was_used_the_copys_text_is_kept(empty_vault):
    saved = _saved(empty_vault)
    note = empty_vault / saved["path"]
    common = note.read_text(encoding="utf-8")
    laptop = common.replace("---\n", "---\nowner: 'sam'  # mine\n", 1).rstrip("\n") + "\n\nAdded on the laptop.\n"
    svc = make_service(empty_vault)
    try:
        svc.touch(saved["id"])  # this device's daemon wrote the note (text as in common)
        copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-LAPTOP1.md")
        copy.write_text(laptop, encoding="utf-8")
        svc.sync()
        (done,) = svc.settle_conflicts()
        assert done["text_kept_from"] == "copy" and not copy.exists()
        merged = parse_note(saved["path"], note.read_bytes())
        assert merged.body.endswith("\n\nAdded on the laptop.\n") and merged.frontmatter["owner"] == "sam"
        assert b"---\nowner: 'sam'  # mine\nid: " in note.read_bytes()  # the person's bytes, as written
        assert merged.fields.id == saved["id"] and merged.fields.use_count == 2  # the touch here kept
        assert recorded(merged)[0] == text_hash(merged)  # the merge is a write: the kept text recorded
        assert svc.conflicts() == [] and svc.status()["conflicts_merged"]["count"] == 1
        assert (empty_vault / done["copy_moved_to"]).exists()  # recoverable
    finally:
        svc.close()


def test_the_person_changed_this_side_then_used_it_and_the_copy_was_used_the_note_is_kept(empty_vault):
    """Person's edit then a use on this side (both sides' latest hash match their own text): the
    copy's text is in this side's list, so this side grew from it."""
    saved = _saved(empty_vault)
    note = empty_vault / saved["path"]
    common = note.read_text(encoding="utf-8")
    svc = make_service(empty_vault)
    try:
        note.write_text(common.rstrip("\n") + "\n\nAdded on the desktop.\n", encoding="utf-8")
        svc.sync()
        svc.touch(saved["id"])
        assert len(recorded(parse_note(saved["path"], note.read_bytes()))) == 2
        copy = note.with_name(f"{note.stem} (conflicted copy 2026-11-20).md")
        copy.write_text(_used_elsewhere(common), encoding="utf-8")
        svc.sync()
        (done,) = svc.settle_conflicts()
        assert done["text_kept_from"] == "note" and not copy.exists()
        merged = parse_note(saved["path"], note.read_bytes())
        assert merged.body.endswith("\n\nAdded on the desktop.\n")
        assert merged.fields.use_count == 3 and merged.fields.uses_by_device == {"base": 1, "local": 1, "laptop": 1}
    finally:
        svc.close()


def test_both_sides_changed_the_text_after_a_use_stays_for_the_person(empty_vault):
    saved = _saved(empty_vault)
    note = empty_vault / saved["path"]
    common = note.read_text(encoding="utf-8")
    svc = make_service(empty_vault)
    try:
        note.write_text(common.rstrip("\n") + "\n\nAdded on the desktop.\n", encoding="utf-8")
        svc.sync()
        svc.touch(saved["id"])
        before = note.read_bytes()
        laptop = _used_elsewhere(common).rstrip("\n") + "\n\nAdded on the laptop.\n"
        copy = note.with_name(f"{note.stem}.sync-conflict-20261120-120000-LAPTOP1.md")
        copy.write_text(laptop, encoding="utf-8")
        svc.sync()
        assert svc.settle_conflicts() == []
        assert note.read_bytes() == before and copy.read_text(encoding="utf-8") == laptop
        assert [c["differs"] for c in svc.conflicts()] == ["text"]
    finally:
        svc.close()


def test_a_write_that_changes_nothing_records_nothing_and_an_unchanged_text_is_not_rewritten(empty_vault):
    saved = _saved(empty_vault)
    note = empty_vault / saved["path"]
    line = re.search(r"(?m)^text_hashes: .*$", note.read_text(encoding="utf-8"))
    assert line is not None and line.group(0).split(": ")[1] == text_hash(parse_note("x.md", note.read_bytes()))
    svc = make_service(empty_vault)
    try:
        svc.touch(saved["id"])
        assert re.search(r"(?m)^text_hashes: .*$", note.read_text(encoding="utf-8")).group(0) == line.group(0)
        before = note.read_bytes()
        svc.sweep(full=True)  # the same instant: nothing from time alone
        assert note.read_bytes() == before
    finally:
        svc.close()


def test_a_move_left_half_done_keeps_the_persons_line_added_on_the_side_that_did_not_move(empty_vault):
    """Promoted on one device (its STM file deleted) while the person added a line to the STM
    file on the other: the sync engine keeps both files. The promoted note keeps the id, the
    person's text and the uses of both; the STM file goes to .trash."""
    saved = _saved(empty_vault)
    note = empty_vault / saved["path"]
    common = note.read_text(encoding="utf-8")
    promoted = _used_elsewhere(common).replace("status: active", "status: promoted")
    (empty_vault / "LTM" / note.name).write_text(promoted, encoding="utf-8")
    note.write_text(common.rstrip("\n") + "\n\nAdded on the desktop.\n", encoding="utf-8")
    svc = make_service(empty_vault, duplicate_settle_seconds=0)
    try:
        svc.sync()
        assert not note.exists()
        kept = parse_note(f"LTM/{note.name}", (empty_vault / "LTM" / note.name).read_bytes())
        assert kept.fields.id == saved["id"] and kept.fields.status == "promoted"
        assert kept.body.endswith("\n\nAdded on the desktop.\n") and kept.fields.use_count == 2
        assert [p.name for p in (empty_vault / ".trash").glob("*.md")] == [note.name]
    finally:
        svc.close()


def _n(body: str, hashes: str | None) -> object:
    head = f"text_hashes: {hashes}\n" if hashes is not None else ""
    return parse_note("STM/x.md", f"---\nid: x\n{head}---\n{body}\n".encode())


def test_kept_side_is_the_side_whose_list_holds_the_others_text_and_nothing_else():
    common = text_hash(_n("Common.", None))
    grown = text_hash(_n("Common. More.", None))
    assert kept_side(_n("Common. More.", common), _n("Common.", common)) == "a"
    assert kept_side(_n("Common.", common), _n("Common. More.", f"{grown} {common}")) == "b"
    assert kept_side(_n("Common. Desk.", common), _n("Common. Laptop.", common)) is None  # both changed
    assert kept_side(_n("Common. More.", None), _n("Common.", None)) is None  # older notes: the person's
    assert kept_side(_n("Common. More.", "12345678"), _n("Common.", common)) is None  # not ours: ignored
    assert kept_side(_n("Common.", common), _n("Common.", None)) == "same"


def test_a_move_left_half_done_with_both_texts_changed_keeps_the_id_on_the_moved_note_on_every_device(tmp_path):
    """Both devices settle it alike: the moved note keeps the id, the copy left behind gets one
    new id, the same on both (no second conflict over ids when their files meet)."""
    results = []
    for name in ("desk", "laptop"):
        vault = tmp_path / name
        vault.mkdir()
        saved = _saved(vault)
        note = vault / saved["path"]
        common = re.sub(r"(?m)^id: .*$", "id: 0d1c2b3a-0000-4000-8000-000000000001", note.read_text(encoding="utf-8"))
        moved = _used_elsewhere(common).replace("status: active", "status: promoted")
        (vault / "LTM" / note.name).write_text(moved.rstrip("\n") + "\n\nAdded on the laptop.\n", encoding="utf-8")
        note.write_text(common.rstrip("\n") + "\n\nAdded on the desktop.\n", encoding="utf-8")
        svc = make_service(vault, duplicate_settle_seconds=0)
        try:
            svc.sync()
            kept = parse_note("LTM/x.md", (vault / "LTM" / note.name).read_bytes())
            left = parse_note("STM/x.md", note.read_bytes())
            assert kept.fields.id == "0d1c2b3a-0000-4000-8000-000000000001"
            assert left.fields.id not in (None, kept.fields.id) and left.body.endswith("Added on the desktop.\n")
            results.append(note.read_bytes())
        finally:
            svc.close()
    assert results[0] == results[1]
