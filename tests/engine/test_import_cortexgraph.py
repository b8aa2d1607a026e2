"""CortexGraph import: relations become links that resolve in the index, archived and
promoted memories land where the project keeps them, and a twin from another source is
reinforced once however often the import runs; a store written by CortexGraph itself (its
append-only log, and the compacted form) imports whole, as CortexGraph reads it."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import FIXED_NOW, make_service
from test_transfer import SECRET, T0, by_source_id, cg_memory, fm_of, notes, write_jsonl
from typer.testing import CliRunner

from bridge.cli import app
from vault_sync.ageing import Facts, memory_score
from vault_sync.ops.relate import backlinks
from vault_sync.transfer import BadSource


def path_of(vault: Path, source_id: str) -> str:
    for p in vault.rglob("*.md"):
        if not p.read_text(encoding="utf-8").startswith("---"):
            continue
        fm, _ = fm_of(p)
        if fm and str(fm.get("source_id")) == source_id:
            return p.relative_to(vault).as_posix()
    raise AssertionError(f"no note for {source_id}")


def test_relations_to_imported_memories_are_links_that_resolve(empty_vault, tmp_path):
    src = write_jsonl(
        tmp_path / "m.jsonl",
        [
            cg_memory(1, "Ann leads the platform team since March"),
            cg_memory(2, "The platform team owns the deploy pipeline"),
            cg_memory(3, "The old deploy pipeline was retired in 2024", status="archived"),
            cg_memory(4, SECRET),
            {"from_memory_id": "mem-1", "to_memory_id": "mem-2", "relation_type": "related"},
            {"from_memory_id": "mem-2", "to_memory_id": "mem-3", "relation_type": "supersedes_old"},
            {"from_memory_id": "mem-2", "to_memory_id": "mem-99", "relation_type": "related"},  # not in the file
            {"from_memory_id": "mem-1", "to_memory_id": "mem-4", "relation_type": "related"},  # refused (a secret)
            {"from_memory_id": "mem-1", "to_memory_id": "mem-2", "relation_type": "status"},  # a key we own
        ],
    )
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
    assert {b["source"] for b in backlinks(svc.engine, p2)} == {p1}
    assert {b["source"] for b in backlinks(svc.engine, p3)} == {p2}
    assert svc.status()["dangling_links"] == 0
    unlinked = {(u["where"], u["to"]): u["cause"] for u in r["unlinked"]}
    assert unlinked == {
        ("line 1", "mem-4"): "its target was refused",
        ("line 2", "mem-99"): "its target is not in the source",
    }
    before = notes(empty_vault)
    again = svc.import_memories("cortexgraph", src)
    assert (again["created"], again["links"]) == (0, 0) and notes(empty_vault) == before


def test_a_link_follows_a_name_that_appeared_on_disk_meanwhile(empty_vault, tmp_path):
    svc = make_service(empty_vault)
    # written after the index was read (no watcher running): the planned name is taken
    (empty_vault / "STM" / "The platform team owns the deploy pipeline.md").write_text("the person's own\n")
    src = write_jsonl(
        tmp_path / "m.jsonl",
        [
            cg_memory(1, "Ann leads the platform team since March"),
            cg_memory(2, "The platform team owns the deploy pipeline"),
            {"from_memory_id": "mem-1", "to_memory_id": "mem-2"},
        ],
    )
    svc.import_memories("cortexgraph", src)
    p1, p2 = path_of(empty_vault, "mem-1"), path_of(empty_vault, "mem-2")
    assert p2 == "STM/The platform team owns the deploy pipeline 2.md"
    assert (empty_vault / "STM" / "The platform team owns the deploy pipeline.md").read_text() == "the person's own\n"
    assert fm_of(empty_vault / p1)[0]["related"] == ["[[The platform team owns the deploy pipeline 2]]"]
    assert {b["source"] for b in backlinks(svc.engine, p2)} == {p1}


def test_archived_and_promoted_memories_go_where_the_project_keeps_them(empty_vault, tmp_path):
    promoted_at = T0 + 5 * 86400
    src = write_jsonl(
        tmp_path / "m.jsonl",
        [
            cg_memory(1, "Still active: the team meets on Tuesdays"),
            cg_memory(2, "Archived: the team used to meet on Mondays", status="archived"),
            cg_memory(3, "Forgotten: the first office was in Leeds", status="forgotten"),
            cg_memory(4, "Promoted: Ann is the platform lead", status="promoted", promoted_at=promoted_at),
            cg_memory(5, "Deleted: never imported at all", status="deleted"),
        ],
    )
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
    """The batch creator of the write path (imports, batch saves), with an unnamed file (Linux) and without
    (elsewhere)."""
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


# -- a store written by CortexGraph 1.2.1 itself (tests/fixtures/cortexgraph/make_store.py) --
FIXTURE = Path(__file__).parent.parent / "fixtures" / "cortexgraph"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))


def _when(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def _check_store_imported(vault: Path) -> None:
    """Every memory CortexGraph itself loads from the log, with its final values; nothing else."""
    ids = EXPECTED["ids"]
    got = {}
    for p in vault.rglob("*.md"):
        fm, body = fm_of(p)
        if fm and fm.get("source") == "cortexgraph":
            got[fm["source_id"]] = (p.relative_to(vault).as_posix(), fm, body.strip())
    assert set(got) == set(EXPECTED["memories"]) and ids["lunch"] not in got  # the deleted one is absent
    for mid, want in EXPECTED["memories"].items():
        path, fm, body = got[mid]
        assert body == want["content"]
        assert fm["tags"] == want["tags"]  # CortexGraph keeps them in `meta.tags`
        assert (fm["created"], fm["last_used"]) == (_when(want["created_at"]), _when(want["last_used"]))
        # n uses there are n + 1 here (CortexGraph does not count the save: its score is (n + 1)^beta)
        assert (fm["use_count"], fm["strength"]) == (want["use_count"] + 1, want["strength"])
        assert fm["status"] == want["status"] and path.startswith(
            "Archive/" if want["status"] == "archived" else "STM/"
        )
    assert got[ids["db"]][1]["use_count"] == 4  # saved, then touched three times: the last record won
    stem = {mid: Path(path).stem for mid, (path, _, _) in got.items()}
    # relations replayed: the deleted one (train contradicts lunch) is gone, the kept ones are links
    assert got[ids["db"]][1]["related"] == [f"[[{stem[ids['old']]}]]"]
    assert got[ids["db"]][1]["supports"] == [f"[[{stem[ids['train']]}]]"]
    assert all("contradicts" not in fm and "relations" not in fm for _, fm, _ in got.values())
    assert not any("Thai place" in p.read_text(encoding="utf-8") for p in vault.rglob("*.md"))


def test_a_store_written_by_cortexgraph_imports_whole_log_or_compacted(tmp_path):
    for form in ("log", "compacted"):
        vault = tmp_path / form
        (vault / "STM").mkdir(parents=True)
        svc = make_service(vault)
        r = svc.import_memories("cortexgraph", FIXTURE / form)
        assert (r["created"], r["refused"], r["links"], r["unlinked"]) == (4, 0, 2, [])
        _check_store_imported(vault)
        assert svc.status()["dangling_links"] == 0
        before = notes(vault)
        again = svc.import_memories("cortexgraph", FIXTURE / form)
        assert (again["created"], again["reinforced"], again["skipped"]) == (0, 0, 4) and notes(vault) == before
        # the other form of the same store is the same memories: nothing added either
        other = svc.import_memories("cortexgraph", FIXTURE / ("compacted" if form == "log" else "log"))
        assert other["created"] == 0 and notes(vault) == before
        svc.close()


def test_what_the_log_held_is_reported(empty_vault):
    svc = make_service(empty_vault)
    r = svc.import_memories("cortexgraph", FIXTURE / "log", dry_run=True)
    assert r["log"] == {
        "memories": {"records": 10, "tombstones": 1, "ids": 5, "kept": 4},  # 5 saves, 4 touches, an archive
        "relations": {"records": 4, "tombstones": 1, "ids": 4, "kept": 3, "orphaned": 1},  # lunch -> tabs
    }
    assert svc.import_memories("cortexgraph", FIXTURE / "compacted", dry_run=True)["log"] == {
        "memories": {"records": 4, "tombstones": 0, "ids": 4, "kept": 4},
        "relations": {"records": 3, "tombstones": 0, "ids": 3, "kept": 3, "orphaned": 1},
    }
    # one file of the store alone reads the same way
    single = svc.import_memories("cortexgraph", FIXTURE / "log" / "memories.jsonl", dry_run=True)
    assert single["log"]["memories"] == r["log"]["memories"] and len(single["would_create"]) == 4
    res = CliRunner().invoke(
        app, ["import", "cortexgraph", str(FIXTURE / "log"), "--dry-run", "--vault", str(empty_vault)]
    )
    assert res.exit_code == 0, res.output
    shown = " ".join(res.output.split())
    assert "log: 10 memory record(s) for 5 id(s), 1 deletion(s) -> 4 memory(ies)" in shown
    assert "log: 4 relation record(s), 1 deletion(s) -> 3 relation(s), 1 from a deleted memory" in shown
    res = CliRunner().invoke(
        app, ["import", "cortexgraph", str(FIXTURE / "log"), "--dry-run", "--json", "--vault", str(empty_vault)]
    )
    assert json.loads(res.output)["log"] == r["log"]


def test_the_log_replays_updates_tombstones_and_revivals_in_order(empty_vault, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    write_jsonl(
        store / "memories.jsonl",
        [
            cg_memory(1, "First words about the garden shed", use_count=1),
            cg_memory(2, "The bakery opens at seven on weekdays"),
            cg_memory(1, "Final words about the garden shed roof", use_count=4),  # an update: the text changed
            {"id": "mem-2", "_deleted": True},
            cg_memory(3, "A memory deleted and then saved again"),
            {"id": "mem-3", "_deleted": True},
            cg_memory(3, "A memory deleted and then saved again, back"),  # a later record brings it back
            {"id": "mem-9", "_deleted": True},  # a tombstone for an id the log never held
        ],
    )
    write_jsonl(
        store / "relations.jsonl",
        [
            {"id": "r1", "from_memory_id": "mem-1", "to_memory_id": "mem-3", "relation_type": "causes"},
            {"id": "r2", "from_memory_id": "mem-3", "to_memory_id": "mem-1", "relation_type": "related"},
            {"id": "r1", "_deleted": True},
            {"id": "r1", "from_memory_id": "mem-1", "to_memory_id": "mem-3", "relation_type": "supports"},  # replaced
        ],
    )
    svc = make_service(empty_vault)
    r = svc.import_memories("cortexgraph", store)
    assert r["created"] == 2 and r["log"]["memories"] == {"records": 5, "tombstones": 3, "ids": 4, "kept": 2}
    assert r["log"]["relations"] == {"records": 3, "tombstones": 1, "ids": 2, "kept": 2, "orphaned": 0}
    got = {sid: (fm, body.strip()) for sid, (fm, body) in by_source_id(empty_vault).items()}
    assert got["mem-1"][1] == "Final words about the garden shed roof" and got["mem-1"][0]["use_count"] == 5
    assert "mem-2" not in got and got["mem-3"][1].endswith(", back")
    assert "supports" in got["mem-1"][0] and "causes" not in got["mem-1"][0] and "related" in got["mem-3"][0]
    # the same id in two files of one folder is two stores mixed: named, nothing imported
    write_jsonl(store / "more.jsonl", [cg_memory(1, "Another store's first memory")])
    with pytest.raises(BadSource) as exc:
        svc.import_memories("cortexgraph", store)
    assert exc.value.problems == ["more.jsonl line 1: id 'mem-1' is also in memories.jsonl; import one store at a time"]


def cortexgraph_score(memory: dict, now: int) -> float:
    """The score CortexGraph 1.2.1 shows (its core/decay.py `calculate_score` with its default
    config: power law, alpha 1.1, half-life 3 days, beta 0.6), written out here from its code."""
    alpha, half_life, beta = 1.1, 3 * 86400.0, 0.6
    t0 = half_life / (2 ** (1 / alpha) - 1)
    dt = max(0, now - memory["last_used"])
    return (memory["use_count"] + 1) ** beta * (1 + dt / t0) ** (-alpha) * memory["strength"]


def test_every_memory_imports_with_the_score_cortexgraph_shows(tmp_path):
    """At a fixed now, each imported memory scores what CortexGraph's own formula gives it, the
    never-touched ones (use_count 0 there) included: none arrives with score 0."""
    last = max(m["last_used"] for m in EXPECTED["memories"].values())
    for later in (3600, 2 * 86400, 20 * 86400):
        now = last + later
        vault = tmp_path / f"at-{later}"
        (vault / "STM").mkdir(parents=True)
        svc = make_service(vault, now=_when(now))
        svc.import_memories("cortexgraph", FIXTURE / "log")
        seen = 0
        for p in vault.rglob("*.md"):
            fm, _ = fm_of(p)
            if not fm or fm.get("source") != "cortexgraph":
                continue
            want = cortexgraph_score(EXPECTED["memories"][fm["source_id"]], now)
            # the engine's own score of what the note holds, unrounded, and as it shows it
            exact = memory_score(svc.engine.params, Facts(fm["use_count"], fm["strength"], fm["last_used"]), _when(now))
            assert exact == pytest.approx(want, rel=1e-9), fm["source_id"]
            shown = 10**-svc.engine.settings.score_precision
            assert svc.note(p.relative_to(vault).as_posix())["score"] == pytest.approx(want, abs=shown)
            assert fm["decay_score"] == pytest.approx(want, abs=shown)
            assert want > 0
            seen += 1
        assert seen == len(EXPECTED["memories"])
        svc.close()
