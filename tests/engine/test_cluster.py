"""Clustering STM memories by meaning and consolidating a cluster into one note (real model)."""

from __future__ import annotations

import uuid

import pytest
from retrieval_set import semantic_service, shared_embedder

from vault_sync.dates import parse_datetime
from vault_sync.errors import InvalidInput, WrongState
from vault_sync.ops.consolidate import consolidate
from vault_sync.search.cluster import action_for, cluster, cluster_id
from vault_sync.search.hybrid import search

REDIS = "STM/Redis session TTL is 30 minutes.md"
REDIS_TWIN = "STM/Redis sessions expire after 30 minutes.md"
STAGING = "STM/Staging runs Postgres 16.md"
STAGING_TWIN = "STM/Staging database upgraded to Postgres 16.md"


def write(vault, rel, body, tags, created, last_used, use_count, strength):
    (vault / rel).write_text(
        f"---\nid: {uuid.uuid4()}\ntags: [{', '.join(tags)}]\ncreated: {created}\nlast_used: {last_used}\n"
        f"use_count: {use_count}\nstrength: {strength}\nstatus: active\n---\n{body}\n",
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def embedder():
    return shared_embedder()


@pytest.fixture
def svc(vault, embedder):
    write(
        vault,
        REDIS_TWIN,
        "Redis session keys (`sess:*`) expire after a sliding 30-minute TTL, refreshed on each authenticated request.",
        ["redis", "sessions"],
        "2026-11-10T08:00:00Z",
        "2026-11-19T18:00:00Z",
        2,
        1.3,
    )
    write(
        vault,
        STAGING_TWIN,
        "Staging was upgraded to Postgres 16 on Thursday; production remains on Postgres 15 until the January "
        "maintenance window.",
        ["postgres", "staging"],
        "2026-11-20T10:00:00Z",
        "2026-11-20T10:00:00Z",
        1,
        1.0,
    )
    s = semantic_service(vault, embedder)
    yield s
    s.close()


def by_members(clusters) -> dict[frozenset, dict]:
    return {frozenset(m["path"] for m in c["members"]): c for c in clusters}


def test_actions_by_cohesion():
    assert action_for(0.95) == "auto-merge" and action_for(0.9) == "auto-merge"
    assert action_for(0.89) == "review" and action_for(0.75) == "review"
    assert action_for(0.74) == "keep separate"


def test_cluster_id_is_stable():
    assert cluster_id(["b", "a"]) == cluster_id(["a", "b"]) != cluster_id(["a", "c"])
    assert cluster_id(["a", "b"]).startswith("c-")


def test_clusters_find_paraphrased_memories(svc):
    clusters = cluster(svc.engine)
    groups = by_members(clusters)
    assert frozenset({REDIS, REDIS_TWIN}) in groups
    assert frozenset({STAGING, STAGING_TWIN}) in groups
    for c in clusters:
        assert c["size"] == len(c["members"]) >= 2
        assert 0.0 < c["cohesion"] <= 1.0
        assert c["action"] == action_for(c["cohesion"])
        assert all(m["path"].startswith("STM/") for m in c["members"])
        assert set(c["members"][0]) == {"id", "path", "title"}
    # unrelated memories stay apart
    assert not any("STM/Road bike tire pressure is 80 psi.md" in ms for ms in groups)
    # the same members give the same id on every run
    assert [c["id"] for c in cluster(svc.engine)] == [c["id"] for c in clusters]
    # a lower threshold links more, never less
    assert sum(c["size"] for c in cluster(svc.engine, threshold=0.6)) >= sum(c["size"] for c in clusters)
    with pytest.raises(InvalidInput):
        cluster(svc.engine, threshold=1.5)


def test_cluster_without_embeddings_is_empty(service):
    assert cluster(service.engine) == []


def test_consolidate_preview_writes_nothing(svc, vault):
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    out = consolidate(svc.engine, [REDIS_TWIN, REDIS])
    assert out["applied"] is False and out["note"] is None and out["archived"] == []
    plan = out["plan"]
    assert [s["path"] for s in plan["sources"]] == [REDIS_TWIN, REDIS]  # oldest first
    assert plan["tags"] == ["redis", "sessions", "project/atlas"]
    assert plan["use_count"] == 3
    assert plan["created"] == "2026-11-10T08:00:00Z"
    assert plan["last_used"] == "2026-11-19T18:00:00Z"
    assert plan["strength"] == pytest.approx(1.4)  # strongest 1.3 + 0.1 for the other one
    assert plan["text"].index("sliding 30-minute TTL, refreshed") < plan["text"].index("(`sess:*`) have a 30-minute")
    assert "[[Redis session TTL is 30 minutes]]" in plan["text"]
    assert "[[Redis sessions expire after 30 minutes]]" in plan["text"]
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before


def test_consolidate_apply_end_to_end(svc, vault):
    groups = by_members(cluster(svc.engine))
    pair = groups[frozenset({REDIS, REDIS_TWIN})]
    out = consolidate(svc.engine, [pair["id"]], apply=True)
    assert out["applied"] is True and out["errors"] == []
    note = out["note"]
    assert note["path"].startswith("STM/") and note["kind"] == "stm"
    assert note["use_count"] == 3 and note["strength"] == pytest.approx(1.4)
    assert sorted(note["tags"]) == ["project/atlas", "redis", "sessions"]
    assert parse_datetime(note["created"]) == parse_datetime("2026-11-10T08:00:00Z")
    assert parse_datetime(note["last_used"]) == parse_datetime("2026-11-19T18:00:00Z")
    text = (vault / note["path"]).read_text(encoding="utf-8")
    assert "[[Redis session TTL is 30 minutes]]" in text and "[[Redis sessions expire after 30 minutes]]" in text
    name = note["path"].rsplit("/", 1)[1][:-3]
    assert len(out["archived"]) == 2
    for original in ("Redis session TTL is 30 minutes.md", "Redis sessions expire after 30 minutes.md"):
        assert not (vault / "STM" / original).exists()
        archived = (vault / "Archive" / original).read_text(encoding="utf-8")
        assert f'merged_into: "[[{name}]]"' in archived or f"merged_into: '[[{name}]]'" in archived
        assert svc.store.note(f"Archive/{original}")["status"] == "archived"
    # the merged note is what search now finds; the originals are out of the default scope
    found = [r["path"] for r in search(svc.engine, "how long do logged-in sessions last in the cache")["results"][:3]]
    assert note["path"] in found
    assert not any(p.startswith("Archive/") for p in found)
    # the cluster is gone
    assert frozenset({REDIS, REDIS_TWIN}) not in by_members(cluster(svc.engine))


def test_consolidate_refuses_bad_input(svc):
    with pytest.raises(InvalidInput):
        consolidate(svc.engine, [REDIS])
    with pytest.raises(InvalidInput):
        consolidate(svc.engine, [REDIS, REDIS])
    with pytest.raises(InvalidInput):
        consolidate(svc.engine, ["c-0000000000"])
    with pytest.raises(WrongState):
        consolidate(svc.engine, [REDIS, "LTM/Espresso recipe.md"])


def test_a_superseded_memory_is_never_offered_for_merging(svc):
    old = svc.save("My train leaves at 8:10 every weekday", title="Train time")["note"]
    new = svc.save("My train leaves at 8:40 every weekday", title="Train time now", supersedes=[old["id"]])["note"]
    # written as its own memory (a save would reinforce `new`: the same fact in other words)
    twin = svc.create_memory("Every weekday my train leaves at 8:40", title="Weekday train")
    clusters = cluster(svc.engine)
    assert not any(old["path"] in {m["path"] for m in c["members"]} for c in clusters)
    pair = by_members(clusters)[frozenset({new["path"], twin["path"]})]
    out = consolidate(svc.engine, [pair["id"]], apply=True)
    text = out["note"]["text"] if "text" in out["note"] else svc.get_memory([out["note"]["id"]])[0]["body"]
    assert "8:40" in text and "8:10" not in text
    top = search(svc.engine, "what time does my train leave")["results"][0]
    assert top["path"] == out["note"]["path"]
    assert svc.get_memory([old["id"]])[0]["history"]["current"] == out["note"]["path"]
