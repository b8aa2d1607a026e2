"""Projects in the engine: `project:` is a person's key, indexed; search, briefings, listings,
clusters and merges keep to the current project plus shared memories; saves are filed under it."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import FIXED_NOW, assert_index_matches_rebuild, make_service

from vault_sync.errors import InvalidInput
from vault_sync.projects import ProjectScope, folder_project, read_project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TOPICS = [
    ("build system", "Bazel 7", "Gradle 8"),
    ("database", "Postgres 16", "MySQL 8"),
    ("deploy day", "Thursday", "Monday"),
    ("ci provider", "Buildkite", "Jenkins"),
    ("frontend framework", "Svelte", "Angular"),
]


@pytest.fixture
def svc(empty_vault):
    s = make_service(empty_vault)
    for topic, a, b in TOPICS:
        s.save(f"Our {topic} is {a} for this repository", project="atlas")
        s.save(f"Our {topic} is {b} for this repository", project="borealis")
    s.save("The user prefers short answers without preamble", project=None)
    yield s
    s.close()


def projects_of(hits):
    return [h["project"] for h in hits]


def test_read_project_values():
    assert read_project("atlas") == ("atlas", None)
    assert read_project("  atlas ") == ("atlas", None)
    assert read_project(7) == ("7", None)
    assert read_project(["atlas"]) == ("atlas", None)
    assert read_project(None) == (None, None)
    assert read_project("") == (None, None)
    name, problem = read_project({"a": 1})
    assert name is None and "not a name" in problem


def test_folder_mapping():
    assert folder_project("/home/u/code/atlas") == "atlas"
    mapping = {"/home/u/code/atlas-web": "atlas", "/home/u/clients/*": "clients", "scratch": ""}
    assert folder_project("/home/u/code/atlas-web", mapping) == "atlas"
    assert folder_project("/home/u/code/atlas-web/src/deep", mapping) == "atlas"  # inside a mapped folder
    assert folder_project("/home/u/clients/acme", mapping) == "clients"
    assert folder_project("/tmp/scratch", mapping) is None  # mapped to "": shared
    assert folder_project("/home/u/code/borealis", mapping) == "borealis"


def test_save_files_under_the_project_and_the_index_has_the_column(svc, empty_vault):
    hits = svc.search("build system", project="atlas")["results"]
    path = hits[0]["path"]
    text = (empty_vault / path).read_text()
    assert "\nproject: atlas\n" in text
    shared = svc.search("short answers preamble", project="atlas")["results"][0]
    assert "project:" not in (empty_vault / shared["path"]).read_text()
    db = sqlite3.connect(svc.store.path)
    counts = dict(db.execute("SELECT coalesce(project, ''), count(*) FROM notes GROUP BY 1").fetchall())
    assert counts == {"atlas": 5, "borealis": 5, "": 1}
    assert svc.status()["projects"] == {"": 1, "atlas": 5, "borealis": 5}


def test_search_keeps_to_the_project_and_shared(svc):
    for topic, a, b in TOPICS:
        for project, own, other in (("atlas", a, b), ("borealis", b, a)):
            answer = svc.search(f"which {topic} do we use", project=project)
            assert answer["project"] == project and answer["all_projects"] is False
            hits = answer["results"]
            assert hits and own in hits[0]["title"] + hits[0]["snippet"], (project, topic, hits[:2])
            assert set(projects_of(hits)) <= {project, None}
            assert not any(other in h["title"] for h in hits)
        everything = svc.search(f"which {topic} do we use", all_projects=True)
        assert everything["all_projects"] is True
        assert {"atlas", "borealis"} <= set(projects_of(everything["results"]))
    for project in ("atlas", "borealis", None):
        hits = svc.search("short answers", project=project)["results"]
        assert hits[0]["project"] is None and "short answers" in hits[0]["title"]
    # without a project: shared memories only
    assert set(projects_of(svc.search("which build system do we use")["results"])) <= {None}


def test_names_compare_without_case(svc):
    hits = svc.search("build system", project="ATLAS")["results"]
    assert hits and {h["project"] for h in hits} <= {"atlas", None}


def test_filter_before_ranking_keeps_a_crowded_out_project(empty_vault):
    """Many borealis notes that match better do not push atlas's one fact out of a short page."""
    s = make_service(empty_vault)
    try:
        for i in range(40):
            s.save(f"Borealis build system note {i}: build system build system details", project="borealis")
        s.save("The build system of this repository is Bazel", project="atlas")
        hits = s.search("build system", limit=3, project="atlas")["results"]
        assert hits and hits[0]["project"] == "atlas"
    finally:
        s.close()


def test_a_twin_in_another_project_is_not_reinforced(svc):
    text = "Our build system is Bazel 7 for this repository"
    again = svc.save(text, project="atlas")
    assert again["reinforced"] is True
    other = svc.save(text, project="borealis")
    assert other["saved"] is True and other["note"]["project"] == "borealis"


def test_supersede_across_projects_only_when_asked(svc):
    atlas = svc.search("database", project="atlas")["results"][0]
    with pytest.raises(InvalidInput, match="across projects"):
        svc.save("Our database is now Postgres 17 everywhere we work", supersedes=[atlas["id"]], project="borealis")
    borealis = svc.search("database", project="borealis")["results"][0]
    with pytest.raises(InvalidInput, match="across projects"):
        svc.supersede(atlas["id"], borealis["id"])
    done = svc.supersede(atlas["id"], borealis["id"], across_projects=True)
    assert done["superseded"]["status"] == "superseded"
    # within one project, as before
    new = svc.save("Our deploy day moved to Friday for this repository", project="atlas")
    old = [h for h in svc.search("deploy day Thursday", project="atlas")["results"] if "Thursday" in h["title"]][0]
    assert svc.supersede(old["id"], new["note"]["id"])["superseded"]["status"] == "superseded"


def test_editing_the_key_moves_a_memory_and_the_index_follows(svc, empty_vault):
    hit = svc.search("frontend framework Svelte", project="atlas")["results"][0]
    path = empty_vault / hit["path"]
    path.write_text(path.read_text().replace("project: atlas", "project: borealis"))
    svc.sync()
    assert not any("Svelte" in h["title"] for h in svc.search("frontend framework", project="atlas")["results"])
    assert any("Svelte" in h["title"] for h in svc.search("frontend framework", project="borealis")["results"])
    path.write_text(path.read_text().replace("project: borealis\n", ""))  # now shared
    svc.sync()
    assert any("Svelte" in h["title"] for h in svc.search("frontend framework", project="atlas")["results"])
    assert_index_matches_rebuild(svc)


def test_brief_recent_review_are_scoped(svc):
    brief = svc.brief("which build system", 2000, project="atlas")
    assert brief["project"] == "atlas" and "project atlas" in brief["text"].splitlines()[0]
    assert "Bazel" in brief["text"] and "Gradle" not in brief["text"]
    assert {i["project"] for i in brief["included"]} <= {"atlas", None}
    assert "short answers" in brief["text"]
    recent = svc.recent(50, project="borealis")
    assert recent["project"] == "borealis" and recent["total"] == 6
    assert {i["project"] for i in recent["items"]} == {"borealis", None}
    assert svc.recent(50, all_projects=True)["total"] == 11
    assert svc.recent(50)["total"] == 1  # shared only
    assert svc.review_page(project="atlas")["project"] == "atlas"


def test_review_queue_filters_by_project(empty_vault):
    s = make_service(empty_vault)
    try:
        for days in range(2, 90, 3):  # some of these ages are in the review zone, whatever the parameters
            for project in ("atlas", "borealis", None):
                s.create_memory(
                    f"A fading memory of {project} about release plan number {days}",
                    created=FIXED_NOW - timedelta(days=days),
                    project=project,
                )
        everything = s.review_page(limit=200, all_projects=True)
        assert everything["total"] >= 3
        atlas = s.review_page(limit=200, project="atlas")
        assert {i["project"] for i in atlas["items"]} <= {"atlas", None}
        assert atlas["total"] < everything["total"]
    finally:
        s.close()


def test_consolidation_never_merges_across_projects(svc):
    a = svc.save("Atlas caches artifacts in a shared S3 bucket nightly", project="atlas")["note"]
    b = svc.save("Borealis caches artifacts in a shared S3 bucket nightly", project="borealis")["note"]
    with pytest.raises(InvalidInput, match="different projects"):
        svc.consolidate([a["id"], b["id"]], apply=True)
    c = svc.save("Atlas keeps cached artifacts for thirty days in the bucket", project="atlas")["note"]
    merged = svc.consolidate([a["id"], c["id"]], apply=True)
    assert merged["note"]["project"] == "atlas"


def test_promotion_keeps_the_key_and_the_ltm_index_groups_by_project(svc, empty_vault):
    atlas = svc.search("ci provider", project="atlas")["results"][0]
    shared = svc.search("short answers", project="atlas")["results"][0]
    for ref in (atlas["id"], shared["id"]):
        svc.promote(ref)
    moved = svc.search("ci provider", project="atlas", scope="ltm")["results"][0]
    assert moved["kind"] == "ltm" and moved["project"] == "atlas"
    assert "\nproject: atlas\n" in (empty_vault / moved["path"]).read_text()
    index = (empty_vault / "LTM" / "LTM Index.md").read_text()
    head, _, section = index.partition("## Project: atlas")
    assert "short answers" in head.lower() or "prefers" in head.lower()
    assert "ci provider" in section.lower() or "Buildkite" in section


def test_import_takes_a_project(empty_vault):
    s = make_service(empty_vault)
    try:
        result = s.import_memories("mem0", FIXTURES / "mem0" / "export.json", project="atlas")
        assert result["created"] > 0
        assert s.status()["projects"] == {"atlas": result["created"]}
        first = s.recent(1, project="atlas")["items"][0]
        assert first["project"] == "atlas"
        assert s.recent(1, project="borealis")["total"] == 0
    finally:
        s.close()


def test_scope_sql_and_admits():
    assert ProjectScope("atlas").admits(None) and ProjectScope("atlas").admits("Atlas")
    assert not ProjectScope("atlas").admits("borealis") and not ProjectScope().admits("atlas")
    with pytest.raises(InvalidInput):
        make_scope = __import__("vault_sync.projects", fromlist=["scope_of"]).scope_of
        make_scope("a\nb")


def test_an_index_from_before_projects_is_rebuilt(empty_vault):
    s = make_service(empty_vault)
    s.save("Our build system is Bazel 7 for this repository", project="atlas")
    path = s.store.path
    s.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    db.execute("UPDATE notes SET project = NULL")
    db.commit()
    db.close()
    s = make_service(empty_vault)
    try:
        assert s.search("build system", project="atlas")["results"][0]["project"] == "atlas"
    finally:
        s.close()


def test_semantic_search_keeps_to_the_project(empty_vault):
    """With the model on: a paraphrase finds this project's fact by meaning, never the other's."""
    from retrieval_set import semantic_service

    s = make_service(empty_vault)
    for topic, a, b in TOPICS:
        s.save(f"Our {topic} is {a} for this repository", project="atlas")
        s.save(f"Our {topic} is {b} for this repository", project="borealis")
    s.close()
    s = semantic_service(empty_vault)
    try:
        answer = s.search("what tool compiles and packages our code", project="borealis")
        assert answer["semantic"] is True
        hits = answer["results"]
        assert hits and {h["project"] for h in hits} <= {"borealis", None}
        assert any(h["parts"]["semantic"] is not None for h in hits)
        assert any("Gradle" in h["title"] for h in hits)
    finally:
        s.close()
