"""The shadow index: Index = f(vault), identity across moves, links, conflicts, bad files."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from conftest import assert_index_matches_rebuild, make_service

from vault_sync.index.resolver import Resolver, build_resolver
from vault_sync.index.store import IndexStore
from vault_sync.index.sync import Indexer
from vault_sync.vault import Layout, conflict_original


def test_cold_index_of_sample_vault(service):
    s = service.status()
    assert s["counts"] == {"stm": 31, "ltm": 5, "archive": 2, "note": 7}
    assert s["dangling_links"] == 1
    assert s["dangling"][0]["target"] == "Nonexistent idea"
    assert not [p for p in s["problems"] if p["blocking"]]
    # the person's notes are indexed for search and links
    row = service.store.note("Projects/Atlas project.md")
    assert row["kind"] == "note" and row["id"] is None


def test_no_change_resync_reads_nothing(service):
    r = service.sync()
    assert (r["added"], r["updated"], r["removed"], r["moved"]) == (0, 0, 0, 0)
    assert r["unchanged"] == 45


def test_links_resolve_like_obsidian(service):
    res = build_resolver(service.store)
    src = "Projects/Atlas project.md"
    assert res.resolve("Staging runs Postgres 16", src) == "STM/Staging runs Postgres 16.md"
    assert (
        res.resolve("STM/Production deploys freeze Friday afternoons", src)
        == "STM/Production deploys freeze Friday afternoons.md"
    )
    assert res.resolve("Nonexistent idea", src) is None
    kinds = {r["kind"] for r in service.store.query("SELECT kind FROM links")}
    assert {"link", "embed", "heading", "block", "related"} <= kinds
    # links inside code blocks are not links
    targets = {r[0] for r in service.store.query("SELECT target FROM links")}
    assert "not a link" not in targets and "also not a link" not in targets


def test_resolver_prefers_same_folder_then_shortest_path():
    r = Resolver(["a/x.md", "b/c/x.md", "x2.md", "b/y.md"], ["img/pic.png", "b/manual.pdf"])
    assert r.resolve("x", "b/c/note.md") == "b/c/x.md"
    assert r.resolve("x", "z/note.md") == "a/x.md"
    assert r.resolve("c/x", "z/note.md") == "b/c/x.md"
    assert r.resolve("alias y", "z/note.md") is None  # Obsidian does not resolve aliases
    assert r.resolve("pic.png", "z/note.md") == "img/pic.png"  # attachments by name, path
    assert r.resolve("../manual.pdf", "b/c/n.md", markdown=True) == "b/manual.pdf"
    assert r.resolve("pic", "z/note.md") is None
    assert r.resolve("../y.md", "b/c/n.md", markdown=True) == "b/y.md"


def test_resolver_changed_many_times_resolves_like_a_fresh_one():
    import random

    rng = random.Random(3)
    paths = [
        f"{rng.choice(['a', 'b', 'b/c', ''])}/{rng.choice(['x', 'y', 'z', 'w'])}{i % 7}.md".lstrip("/")
        for i in range(60)
    ]
    paths = sorted(set(paths))
    r = Resolver(paths)
    before = r
    live = list(paths)
    for step in range(200):  # more moves than MAX_LAYERS: flattening happens on the way
        src = rng.choice(live)
        dst = f"{rng.choice(['a', 'b', 'new', 'b/c'])}/{rng.choice(['x', 'y', 'q'])}{step % 5}.md"
        if dst in live:
            continue
        live.remove(src)
        live.append(dst)
        r = r.changed(added=dst, removed=src)
    fresh = Resolver(live)
    for target in ["x0", "y1", "q3", "b/x2", "c/y4", "new/q0", "w3", "z6", "missing"]:
        for source in ["a/n.md", "b/c/n.md", "n.md"]:
            assert r.resolve(target, source) == fresh.resolve(target, source), (target, source)
    assert before.resolve("w3", "n.md") == Resolver(paths).resolve("w3", "n.md")  # the old one is untouched


def test_moved_memory_keeps_its_row(service, vault):
    row = service.store.note("STM/Redis session TTL is 30 minutes.md")
    (vault / "STM" / "Redis session TTL is 30 minutes.md").rename(vault / "STM" / "Redis TTL.md")
    r = service.sync()
    assert r["moved"] == 1 and r["added"] == 0 and r["removed"] == 0
    assert service.store.note("STM/Redis TTL.md")["rowid"] == row["rowid"]


def test_moved_person_note_keeps_its_row_by_checksum(service, vault):
    row = service.store.note("People.md")
    (vault / "Archive2").mkdir()
    shutil.move(vault / "People.md", vault / "Archive2" / "People.md")
    r = service.sync()
    assert r["moved"] == 1
    assert service.store.note("Archive2/People.md")["rowid"] == row["rowid"]


def test_duplicate_id_copy_gets_a_new_id(service, vault):
    src = vault / "STM" / "Redis session TTL is 30 minutes.md"
    copy = vault / "STM" / "Redis copy.md"
    shutil.copy(src, copy)
    original_id = service.store.note("STM/Redis session TTL is 30 minutes.md")["id"]
    r = service.sync()
    assert r["id_fixes"] and "Redis copy.md" in r["id_fixes"][0]
    assert service.store.note("STM/Redis session TTL is 30 minutes.md")["id"] == original_id
    new_id = service.store.note("STM/Redis copy.md")["id"]
    assert new_id and new_id != original_id
    text = copy.read_text(encoding="utf-8")
    assert f"id: {new_id}" in text and text.replace(new_id, original_id) == src.read_text(encoding="utf-8")
    assert_index_matches_rebuild(service)


@pytest.mark.parametrize(
    "name, original",
    [
        ("Note.sync-conflict-20261120-101010-ABCDEF1.md", "Note.md"),
        ("Note (conflicted copy 2026-11-20).md", "Note.md"),
        ("Note (Conflict 2026-11-20 10-10-10).md", "Note.md"),
        ("Note-DESKTOP-AB12CD3.md", "Note.md"),
        ("Note [Conflict].md", "Note.md"),
        ("Notes about conflicts.md", None),
        ("Note (1).md", None),
    ],
)
def test_conflict_copy_names(name, original):
    assert conflict_original(name) == original


def test_conflict_copies_are_reported_not_indexed(service, vault):
    src = vault / "STM" / "Redis session TTL is 30 minutes.md"
    shutil.copy(src, vault / "STM" / "Redis session TTL is 30 minutes.sync-conflict-20261120-101010-ABCDEF1.md")
    service.sync()
    s = service.status()
    assert s["conflicts"] == [
        {
            "path": "STM/Redis session TTL is 30 minutes.sync-conflict-20261120-101010-ABCDEF1.md",
            "original": "STM/Redis session TTL is 30 minutes.md",
            "differs": "nothing",  # the same bytes: the lease holder merges it
            "diff": [],
            "diff_cut": 0,
        }
    ]
    assert s["counts"]["stm"] == 31


def test_dot_folders_symlinks_and_other_files_are_skipped(empty_vault, tmp_path):
    (empty_vault / ".obsidian").mkdir()
    (empty_vault / ".obsidian" / "x.md").write_text("hidden", encoding="utf-8")
    (empty_vault / ".trash").mkdir()
    (empty_vault / ".trash" / "gone.md").write_text("gone", encoding="utf-8")
    (empty_vault / "image.png").write_bytes(b"\x89PNG")
    loop = empty_vault / "loop"
    loop.symlink_to(empty_vault, target_is_directory=True)
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside", encoding="utf-8")
    (empty_vault / "link.md").symlink_to(outside)
    (empty_vault / "real.md").write_text("real", encoding="utf-8")
    svc = make_service(empty_vault)
    r = svc.sync(rebuild=True)
    assert [row["path"] for row in svc.store.query("SELECT path FROM notes")] == ["real.md"]
    assert "loop" in r["skipped"] and "link.md" in r["skipped"]
    svc.close()


def test_many_non_markdown_files_are_cheap(empty_vault):
    junk = empty_vault / "attachments"
    junk.mkdir()
    for i in range(3000):
        (junk / f"f{i}.bin").write_bytes(b"x")
    (empty_vault / "n.md").write_text("note", encoding="utf-8")
    svc = make_service(empty_vault)
    assert svc.status()["counts"]["note"] == 1
    svc.close()


def test_unreadable_and_vanishing_files(empty_vault):
    locked = empty_vault / "locked.md"
    locked.write_text("x", encoding="utf-8")
    locked.chmod(0)
    svc = make_service(empty_vault)
    problems = {p["path"]: p["cause"] for p in svc.status()["problems"]}
    if os.geteuid() != 0:  # root reads anything
        assert "cannot read" in problems["locked.md"]
    locked.chmod(0o644)
    # a file that vanishes between listing and reading is simply gone
    gone = svc.layout.abs("gone.md")
    gone.write_text("y", encoding="utf-8")
    st = gone.stat()
    gone.unlink()
    assert svc.indexer._read("gone.md", st) is None
    svc.close()


def test_odd_unicode_names(empty_vault):
    for name in ("Café déjà vu.md", "日本語のメモ.md", "emoji 🧠 note.md", "Straße.md"):
        (empty_vault / name).write_text(f"# {name}\ncontent", encoding="utf-8")
    svc = make_service(empty_vault)
    assert svc.status()["counts"]["note"] == 4
    hits = svc.store.query("SELECT rowid FROM fts WHERE fts MATCH 'deja'")  # diacritics removed
    assert len(hits) == 1
    assert_index_matches_rebuild(svc)
    svc.close()


def test_schema_version_change_rebuilds(vault, tmp_path):
    path = tmp_path / "idx.sqlite3"
    store = IndexStore(path)
    Indexer(store, Layout(vault)).reconcile()
    store.set_meta("schema_version", "0")
    store.close()
    store = IndexStore(path)
    assert store.rebuilt
    assert store.one("SELECT count(*) FROM notes")[0] == 0
    Indexer(store, Layout(vault)).reconcile()
    assert store.one("SELECT count(*) FROM notes")[0] == 45
    store.close()


def test_an_index_from_before_the_covering_tag_index_is_upgraded_in_place(vault, tmp_path):
    path = tmp_path / "idx.sqlite3"
    store = IndexStore(path)
    Indexer(store, Layout(vault)).reconcile()
    store.db.execute("DROP INDEX tags_tag_note")
    store.db.execute("CREATE INDEX tags_tag ON tags(tag)")  # what schema 4 had
    store.db.execute("INSERT INTO embeddings VALUES ('h', 'm', x'00')")
    store.close()
    store = IndexStore(path)
    names = {r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "tags_tag_note" in names and "tags_tag" not in names
    assert not store.rebuilt and store.one("SELECT count(*) FROM embeddings")[0] == 1  # nothing rebuilt or lost
    store.close()


def test_leftover_temp_files_are_cleaned(empty_vault, monkeypatch):
    import vault_sync.index.sync as sync_mod

    monkeypatch.setattr(sync_mod, "TEMP_MAX_AGE_S", 0.5)
    left = empty_vault / "STM" / ".x.md.mvtmp-abcd1234"
    left.write_text("half", encoding="utf-8")
    waiting = empty_vault / "STM" / ".y.md.mvtmp-abcd1234"  # a sweep's old copy: old mtime, just swapped out
    waiting.write_text("old bytes", encoding="utf-8")
    time.sleep(0.6)
    old = time.time() - 3600
    os.utime(waiting, (old, old))  # sets its ctime to now, as a rename does
    svc = make_service(empty_vault)
    assert not left.exists()
    assert waiting.exists()
    svc.close()


def test_index_lives_outside_the_vault_by_default(vault, monkeypatch, tmp_path):
    from vault_sync.settings import load_settings

    s = load_settings(vault=vault)
    assert vault not in s.resolved_index_path().parents
    other = load_settings(vault=tmp_path)
    assert other.resolved_index_path() != s.resolved_index_path()


def test_persons_notes_may_use_our_key_names_freely(empty_vault):
    (empty_vault / "Draft.md").write_text("---\nstatus: draft\nstrength: high\n---\nmy draft\n", encoding="utf-8")
    (empty_vault / "Empty.md").write_text("", encoding="utf-8")
    (empty_vault / "STM" / "bad.md").write_text("---\nstatus: draft\n---\na memory\n", encoding="utf-8")
    svc = make_service(empty_vault)
    paths = {p["path"] for p in svc.status()["problems"]}
    assert paths == {"STM/bad.md"}
    svc.close()


def test_fts_index_is_merged_after_many_single_note_writes(empty_vault, monkeypatch):
    import vault_sync.index.store as store_mod

    monkeypatch.setattr(store_mod, "FTS_OPTIMIZE_AFTER", 5)
    svc = make_service(empty_vault)
    merges = []
    svc.store.db.set_trace_callback(lambda sql: merges.append(sql) if "'optimize'" in sql else None)
    note = empty_vault / "Inbox.md"
    for i in range(5):  # a new note (bulk insert, not counted), then four rewrites
        note.write_text(f"version {i} word{i}", encoding="utf-8")
        svc.indexer.sync_paths(["Inbox.md"])
    assert merges == [] and svc.store.fts_writes == 4
    note.write_text("version 5 okapi", encoding="utf-8")
    svc.indexer.sync_paths(["Inbox.md"])
    assert len(merges) == 1 and svc.store.fts_writes == 0
    assert [r[0] for r in svc.store.query("SELECT rowid FROM fts WHERE fts MATCH 'okapi'")]
    assert not svc.store.query("SELECT rowid FROM fts WHERE fts MATCH 'word4'")
    assert_index_matches_rebuild(svc)
    svc.close()
