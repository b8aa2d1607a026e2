"""Moves keep every link: promote / archive / restore with path-qualified links, crashes, races."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import assert_index_matches_rebuild, make_service

from vault_sync.errors import WrongState
from vault_sync.index.resolver import build_resolver

NOTE = "Use uv for Python environments"
STM, LTM, ARC = f"STM/{NOTE}.md", f"LTM/{NOTE}.md", f"Archive/{NOTE}.md"
ALL_FORMS = (
    "\n## Links to uv\n\n"
    f"- plain [[STM/{NOTE}]]\n"
    f"- alias [[STM/{NOTE}|uv note]]\n"
    f"- heading [[STM/{NOTE}#Why]]\n"
    f"- block [[STM/{NOTE}#^b1]]\n"
    f"- with ext [[STM/{NOTE}.md|ext]]\n"
    f"- embed ![[STM/{NOTE}]]\n"
    f"- markdown [t](STM/{NOTE.replace(' ', '%20')}.md)\n"
    f"- markdown heading [t](STM/{NOTE.replace(' ', '%20')}.md#Why)\n"
    f"- angle [t](<STM/{NOTE}.md>)\n"
    f"- by name [[{NOTE}]]\n"
    "- code `[[STM/" + NOTE + "]]` stays\n"
)


def frontmatter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def resolved_links(svc) -> set[tuple]:
    resolver = build_resolver(svc.store)
    out = set()
    for r in svc.store.query(
        "SELECT n.path, l.target, l.subpath, l.alias, l.kind, l.markdown FROM links l JOIN notes n ON n.rowid = "
        "l.source"
    ):
        hit = resolver.resolve(r["target"], r["path"], bool(r["markdown"]))
        if hit is not None:
            out.add((r["path"], hit, r["subpath"], r["alias"], r["kind"]))
    return out


def moved(links: set[tuple], old: str, new: str) -> set[tuple]:
    return {(new if s == old else s, new if t == old else t, *rest) for s, t, *rest in links}


@pytest.fixture
def linked_vault(vault):
    with open(vault / "Engineering notes.md", "a", encoding="utf-8") as fh:
        fh.write(ALL_FORMS)
    (vault / "Projects" / "uv refs.md").write_text(
        f"Relative: [up](../STM/{NOTE.replace(' ', '%20')}.md) and [[../STM/{NOTE}]]\n", encoding="utf-8"
    )
    return vault


def test_promote_archive_restore_keep_every_resolved_link(linked_vault):
    vault = linked_vault
    svc = make_service(vault)
    before = resolved_links(svc)
    assert sum(1 for s, t, *_ in before if t == STM and s != STM) >= 10
    dangling_before = svc.dangling_links()

    svc.promote(STM)
    after_promote = resolved_links(svc)
    # the index note gains a link; every old link still resolves, to the new path
    assert moved(before, STM, LTM) <= after_promote
    eng = (vault / "Engineering notes.md").read_text(encoding="utf-8")
    assert f"[[LTM/{NOTE}]]" in eng and f"[[LTM/{NOTE}|uv note]]" in eng and f"[[LTM/{NOTE}#Why]]" in eng
    assert f"[[LTM/{NOTE}#^b1]]" in eng and f"![[LTM/{NOTE}]]" in eng and f"[[LTM/{NOTE}.md|ext]]" in eng
    assert f"(LTM/{NOTE.replace(' ', '%20')}.md)" in eng and f"(LTM/{NOTE.replace(' ', '%20')}.md#Why)" in eng
    assert f"(<LTM/{NOTE}.md>)" in eng and f"[[{NOTE}]]" in eng
    assert "`[[STM/" + NOTE + "]]`" in eng  # code is not a link: untouched
    rel = (vault / "Projects" / "uv refs.md").read_text(encoding="utf-8")
    assert f"(../LTM/{NOTE.replace(' ', '%20')}.md)" in rel
    assert_index_matches_rebuild(svc)

    svc.archive(LTM)
    after_archive = resolved_links(svc)
    assert moved(after_promote, LTM, ARC) == after_archive
    fm = frontmatter(vault / ARC)
    assert fm["status"] == "archived" and fm["archive_reason"] == "archived on request" and fm["archived_at"]
    assert_index_matches_rebuild(svc)

    svc.restore(ARC)  # back where it was archived from: LTM/
    after_restore = resolved_links(svc)
    assert moved(after_archive, ARC, LTM) == after_restore
    assert moved(before, STM, LTM) <= after_restore
    assert after_restore - moved(before, STM, LTM) == {("LTM/LTM Index.md", LTM, "", "", "link")}
    fm = frontmatter(vault / LTM)
    assert fm["status"] == "promoted" and "archived_at" not in fm and "archive_reason" not in fm
    assert not (vault / STM).exists() and not (vault / ARC).exists()
    assert svc.dangling_links() == dangling_before
    assert_index_matches_rebuild(svc)


def test_graph_follows_moves(linked_vault):
    svc = make_service(linked_vault)
    svc.promote(STM)
    g = svc.graph()
    assert {"source": "Engineering notes.md", "target": LTM, "kind": "embed"} in g["edges"]
    assert not any(e["target"] == STM for e in g["edges"])


def test_target_name_taken_in_ltm_is_refused_and_nothing_moves(vault):
    (vault / LTM).write_text("# My own note with that name\n", encoding="utf-8")
    svc = make_service(vault)
    before = (vault / STM).read_bytes()
    with pytest.raises(WrongState, match="already exists"):
        svc.promote(STM)
    assert (vault / STM).read_bytes() == before
    assert (vault / LTM).read_text(encoding="utf-8") == "# My own note with that name\n"
    assert (
        not list((vault / ".mnemovault" / "journal").glob("*.json"))
        if (vault / ".mnemovault" / "journal").exists()
        else True
    )
    assert svc.store.note(STM)["kind"] == "stm"
    assert_index_matches_rebuild(svc)
    # the batch reports the error and goes on with the others
    out = svc.promote_all()
    assert [e["path"] for e in out["errors"]] == [STM]
    assert len(out["promoted"]) == 4
    assert (vault / STM).exists() and not (vault / LTM).read_text(encoding="utf-8").startswith("---")


def _crash_after_link(monkeypatch):
    import vault_sync.write_path as write_path

    def boom(*a, **k):
        raise KeyboardInterrupt("power cut")

    real_link = write_path.rename_noreplace

    def link_only(src, dst):  # the hard link exists, then the process dies before the unlink
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.link(src, dst)
        raise KeyboardInterrupt("power cut")

    monkeypatch.setattr(write_path, "rename_noreplace", link_only)  # the write path's move primitive
    return real_link, boom


@pytest.mark.parametrize("sync_first", [False, True])
def test_crash_between_link_and_unlink_recovers_to_new_state(linked_vault, tmp_path, monkeypatch, sync_first):
    vault = linked_vault
    svc = make_service(vault)
    before = resolved_links(svc)
    note_id = svc.store.note(STM)["id"]
    _crash_after_link(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        svc.promote(STM)
    svc.close()
    monkeypatch.undo()
    assert os.path.samefile(vault / STM, vault / LTM)
    assert len(list((vault / ".mnemovault" / "journal").glob("*.json"))) == 1

    svc2 = make_service(vault, sync=sync_first, index_path=tmp_path / "second.sqlite3")
    done = svc2.recover()
    if not sync_first:
        svc2.sync()
    assert done and "completed" in done[0]
    assert not (vault / STM).exists() and (vault / LTM).exists()
    fm = frontmatter(vault / LTM)
    assert fm["id"] == note_id and fm["status"] == "promoted" and fm["promoted_at"]
    assert [r["path"] for r in svc2.store.notes_with_id(note_id)] == [LTM]
    assert f"[[{NOTE}]]" in (vault / "LTM" / "LTM Index.md").read_text(encoding="utf-8")
    assert moved(before, STM, LTM) <= resolved_links(svc2)
    assert not list((vault / ".mnemovault" / "journal").glob("*.json"))
    assert_index_matches_rebuild(svc2)
    assert svc2.recover() == []


@pytest.mark.parametrize("name", [NOTE, "Marta owns billing on-call"])
def test_crash_after_unlink_before_patch_and_rewrite(linked_vault, tmp_path, monkeypatch, name):
    """Killed after the note reached LTM/ with its old keys, before links were rewritten:
    recovery ends in exactly the files an uninterrupted promotion writes."""
    vault = linked_vault
    stm, ltm = f"STM/{name}.md", f"LTM/{name}.md"
    reference = tmp_path / "reference"
    shutil.copytree(vault, reference)
    ref_svc = make_service(reference)
    ref_svc.promote(stm)
    svc = make_service(vault)
    before = resolved_links(svc)
    import vault_sync.write_path as write_path

    def die(*a, **k):
        raise SystemExit("killed")

    monkeypatch.setattr(write_path, "update_file", die)  # the move's patch goes through the write path
    with pytest.raises(SystemExit):
        svc.promote(stm)
    monkeypatch.undo()
    svc.close()
    assert not (vault / stm).exists() and frontmatter(vault / ltm)["status"] == "active"
    svc2 = make_service(vault, index_path=tmp_path / "2.sqlite3")
    svc2.recover()
    for rel in (ltm, "LTM/LTM Index.md", "Engineering notes.md", "Projects/uv refs.md", "People.md"):
        assert (vault / rel).read_bytes() == (reference / rel).read_bytes(), rel
    assert moved(before, stm, ltm) <= resolved_links(svc2)
    assert_index_matches_rebuild(svc2)


def test_crash_before_link_rolls_back(vault):
    svc = make_service(vault)
    journal = vault / ".mnemovault" / "journal"
    journal.mkdir(parents=True, exist_ok=True)
    (journal / "abc.json").write_text(json.dumps({"src": STM, "dst": LTM, "id": "x", "reason": "r"}), encoding="utf-8")
    (journal / "bad.json").write_text("{not json", encoding="utf-8")
    (journal / "evil.json").write_text(json.dumps({"src": "../outside.md", "dst": LTM}), encoding="utf-8")
    before = (vault / STM).read_bytes()
    done = svc.recover()
    assert any("rolled back" in d for d in done)
    assert any(d.startswith("refused the journal entry for ../outside.md") for d in done)
    assert (vault / STM).read_bytes() == before and not (vault / LTM).exists()
    assert not list(journal.glob("*.json"))
    assert [p.name for p in (journal / "quarantine").iterdir()] == ["evil.json"]  # set aside, not acted on
    assert_index_matches_rebuild(svc)


def _edit_during_write(monkeypatch, target: Path, line: str) -> dict:
    """The person appends `line` to `target` while the engine is writing its temp file
    (between the engine's read and its rename)."""
    import vault_sync.writer as writer

    real_fsync = writer.os.fsync
    state = {"done": False}

    def fsync_with_edit(fd):
        real_fsync(fd)
        if not state["done"] and target.exists():
            state["done"] = True
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(line)

    monkeypatch.setattr(writer.os, "fsync", fsync_with_edit)
    return state


def test_person_edit_between_read_and_write_survives_a_promotion(vault, monkeypatch):
    svc = make_service(vault)
    name = "Marta owns billing on-call"
    state = _edit_during_write(monkeypatch, vault / "LTM" / f"{name}.md", "\nTyped by the person while promoting.\n")
    svc.promote(f"STM/{name}.md")
    monkeypatch.undo()
    assert state["done"]
    text = (vault / "LTM" / f"{name}.md").read_text(encoding="utf-8")
    assert "Typed by the person while promoting." in text
    assert "## Related" in text and frontmatter(vault / "LTM" / f"{name}.md")["status"] == "promoted"
    assert_index_matches_rebuild(svc)


def test_person_edit_during_touch_survives(vault, monkeypatch):
    svc = make_service(vault)
    target = vault / "STM" / "Staging runs Postgres 16.md"
    before = frontmatter(target)["use_count"]
    state = _edit_during_write(monkeypatch, target, "Person's line.\n")
    svc.touch("STM/Staging runs Postgres 16.md")
    monkeypatch.undo()
    assert state["done"]
    assert target.read_text(encoding="utf-8").endswith("Person's line.\n")
    assert frontmatter(target)["use_count"] == before + 1
    assert_index_matches_rebuild(svc)


def test_person_edit_during_link_rewrite_survives(linked_vault, monkeypatch):
    vault = linked_vault
    svc = make_service(vault)
    eng = vault / "Engineering notes.md"
    import vault_sync.write_path as lr  # link rewrites write through the write path

    real = lr.update_file

    def update_after_edit(path, data, transform, *a, **k):
        if path == eng:
            with open(eng, "a", encoding="utf-8") as fh:
                fh.write("\nA new thought.\n")
        return real(path, data, transform, *a, **k)

    monkeypatch.setattr(lr, "update_file", update_after_edit)
    svc.promote(STM)
    monkeypatch.undo()
    text = eng.read_text(encoding="utf-8")
    assert text.endswith("A new thought.\n") and f"[[LTM/{NOTE}|uv note]]" in text
    assert_index_matches_rebuild(svc)
