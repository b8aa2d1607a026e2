"""CortexGraph import: relations become links that resolve in the index, archived and
promoted memories land where the project keeps them, and a twin from another source is
reinforced once however often the import runs."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from conftest import FIXED_NOW, make_service
from test_transfer import T0, SECRET, cg_memory, fm_of, notes, write_jsonl

from vault_sync.ops.relate import backlinks


def path_of(vault: Path, source_id: str) -> str:
    for p in vault.rglob("*.md"):
        if not p.read_text(encoding="utf-8").startswith("---"):
            continue
        fm, _ = fm_of(p)
        if fm and str(fm.get("source_id")) == source_id:
            return p.relative_to(vault).as_posix()
    raise AssertionError(f"no note for {source_id}")


def test_relations_to_imported_memories_are_links_that_resolve(empty_vault, tmp_path):
    src = write_jsonl(tmp_path / "m.jsonl", [
        cg_memory(1, "Ann leads the platform team since March"),
        cg_memory(2, "The platform team owns the deploy pipeline"),
        cg_memory(3, "The old deploy pipeline was retired in 2024", status="archived"),
        cg_memory(4, SECRET),
        {"from_memory_id": "mem-1", "to_memory_id": "mem-2", "relation_type": "related"},
        {"from_memory_id": "mem-2", "to_memory_id": "mem-3", "relation_type": "supersedes_old"},
        {"from_memory_id": "mem-2", "to_memory_id": "mem-99", "relation_type": "related"},  # not in the file
        {"from_memory_id": "mem-1", "to_memory_id": "mem-4", "relation_type": "related"},  # refused (a secret)
        {"from_memory_id": "mem-1", "to_memory_id": "mem-2", "relation_type": "status"},  # a key we own
    ])
    svc = make_service(empty_vault)
    r = svc.import_memories("cortexgraph", src)
    assert (r["created"], r["refused"], r["links"]) == (3, 1, 3)
    p1, p2, p3 = (path_of(empty_vault, f"mem-{i}") for i in (1, 2, 3))
    fm1, _ = fm_of(empty_vault / p1)
    fm2, _ = fm_of(empty_vault / p2)
    assert fm1["related"] == [f"[[{Path(p2).stem}]]"] and fm1["status"] == "active"  # "status" type: into related
    assert fm1["relations"] == ["related mem-4"]
    assert fm2["supersedes_old"] == [f"[[{Path(p3).stem}]]"] and fm2["relations"] == ["related mem-99"]
    # resolved through the index: the targets have the importing notes as backlinks
    assert {b["source"] for b in backlinks(svc, p2)} == {p1}
    assert {b["source"] for b in backlinks(svc, p3)} == {p2}
    assert svc.status()["dangling_links"] == 0
    unlinked = {(u["where"], u["to"]): u["cause"] for u in r["unlinked"]}
    assert unlinked == {("line 1", "mem-4"): "its target was refused", ("line 2", "mem-99"): "its target is not in the source"}
    before = notes(empty_vault)
    again = svc.import_memories("cortexgraph", src)
    assert (again["created"], again["links"]) == (0, 0) and notes(empty_vault) == before


def test_a_link_follows_a_name_that_appeared_on_disk_meanwhile(empty_vault, tmp_path):
    svc = make_service(empty_vault)
    # written after the index was read (no watcher running): the planned name is taken
    (empty_vault / "STM" / "The platform team owns the deploy pipeline.md").write_text("the person's own\n")
    src = write_jsonl(tmp_path / "m.jsonl", [
        cg_memory(1, "Ann leads the platform team since March"),
        cg_memory(2, "The platform team owns the deploy pipeline"),
        {"from_memory_id": "mem-1", "to_memory_id": "mem-2"},
    ])
    svc.import_memories("cortexgraph", src)
    p1, p2 = path_of(empty_vault, "mem-1"), path_of(empty_vault, "mem-2")
    assert p2 == "STM/The platform team owns the deploy pipeline 2.md"
    assert (empty_vault / "STM" / "The platform team owns the deploy pipeline.md").read_text() == "the person's own\n"
    assert fm_of(empty_vault / p1)[0]["related"] == ["[[The platform team owns the deploy pipeline 2]]"]
    assert {b["source"] for b in backlinks(svc, p2)} == {p1}


def test_archived_and_promoted_memories_go_where_the_project_keeps_them(empty_vault, tmp_path):
    promoted_at = T0 + 5 * 86400
    src = write_jsonl(tmp_path / "m.jsonl", [
        cg_memory(1, "Still active: the team meets on Tuesdays"),
        cg_memory(2, "Archived: the team used to meet on Mondays", status="archived"),
        cg_memory(3, "Forgotten: the first office was in Leeds", status="forgotten"),
        cg_memory(4, "Promoted: Ann is the platform lead", status="promoted", promoted_at=promoted_at),
        cg_memory(5, "Deleted: never imported at all", status="deleted"),
    ])
    svc = make_service(empty_vault)
    r = svc.import_memories("cortexgraph", src)
    assert r["created"] == 4
    kinds = {sid: svc.resolve(path_of(empty_vault, sid))["kind"] for sid in ("mem-1", "mem-2", "mem-3", "mem-4")}
    assert kinds == {"mem-1": "stm", "mem-2": "archive", "mem-3": "archive", "mem-4": "ltm"}
    assert path_of(empty_vault, "mem-2").startswith("Archive/") and path_of(empty_vault, "mem-4").startswith("LTM/")
    fm2, _ = fm_of(empty_vault / path_of(empty_vault, "mem-2"))
    assert fm2["status"] == "archived" and fm2["archived_at"] == FIXED_NOW and fm2["archive_reason"]
    fm4, _ = fm_of(empty_vault / path_of(empty_vault, "mem-4"))
    assert fm4["status"] == "promoted" and fm4["promoted_at"] == datetime.fromtimestamp(promoted_at, tz=timezone.utc)
    assert "promoted_at" not in fm_of(empty_vault / path_of(empty_vault, "mem-1"))[0]
    index_note = (empty_vault / "LTM" / "LTM Index.md").read_text(encoding="utf-8")  # listed, as a promotion lists it
    assert f"- [[{Path(path_of(empty_vault, 'mem-4')).stem}]] (promoted 2026-10-06)" in index_note
    counts = svc.status()["counts"]
    assert (counts["stm"], counts["ltm"], counts["archive"]) == (1, 2, 2)  # LTM: the memory and the LTM index note
    before = notes(empty_vault)
    assert svc.import_memories("cortexgraph", src)["created"] == 0 and notes(empty_vault) == before

    bad = write_jsonl(tmp_path / "bad.jsonl", [cg_memory(9, "An unknown state here", status="sleeping")])
    try:
        svc.import_memories("cortexgraph", bad)
    except Exception as exc:  # BadSource
        assert "line 1" in str(exc) and "status" in str(exc)
    else:
        raise AssertionError("an unknown status must be reported")


def test_a_twin_from_another_source_is_reinforced_once_across_reruns(empty_vault, tmp_path):
    mem0 = tmp_path / "mem0.json"
    mem0.write_text(json.dumps([{"id": "a1", "memory": "The office wifi is called Orchard-5G"}]), encoding="utf-8")
    svc = make_service(empty_vault)
    assert svc.import_memories("mem0", mem0)["created"] == 1
    twin = path_of(empty_vault, "a1")
    assert fm_of(empty_vault / twin)[0]["use_count"] == 1
    src = write_jsonl(tmp_path / "m.jsonl", [cg_memory(7, "the office WiFi is called   Orchard-5G")])
    r = svc.import_memories("cortexgraph", src)
    assert (r["created"], r["reinforced"]) == (0, 1)
    fm, _ = fm_of(empty_vault / twin)
    assert fm["use_count"] == 2 and fm["imported_ids"] == ["cortexgraph:mem-7"]
    assert (fm["source"], fm["source_id"]) == ("mem0", "a1")  # its own origin unchanged
    for _ in range(2):
        again = svc.import_memories("cortexgraph", src)
        assert (again["reinforced"], again["skipped"]) == (0, 1)
    assert fm_of(empty_vault / twin)[0]["use_count"] == 2  # once, not once per run
    # the record lives in the vault: a rebuilt index gives the same answer
    svc.sync(rebuild=True)
    assert svc.import_memories("cortexgraph", src)["reinforced"] == 0
    assert fm_of(empty_vault / twin)[0]["use_count"] == 2


def test_new_files_appear_whole_and_never_over_an_existing_one(tmp_path):
    """The batch creator of the write path (imports, batch saves), with an unnamed file (Linux) and without (elsewhere)."""
    import os

    import pytest

    from vault_sync.writer import NewFiles

    umask = os.umask(0o022)
    os.umask(umask)
    for unnamed in (True, False):
        folder = tmp_path / f"unnamed-{unnamed}"
        folder.mkdir()
        files = NewFiles()
        files.unnamed = files.unnamed and unnamed
        try:
            files.create(folder / "a.md", b"first")
            with pytest.raises(FileExistsError):
                files.create(folder / "a.md", b"second")
        finally:
            files.close()
        assert (folder / "a.md").read_bytes() == b"first"
        assert sorted(os.listdir(folder)) == ["a.md"]  # no temp file left behind
        assert (folder / "a.md").stat().st_mode & 0o777 == 0o666 & ~umask
