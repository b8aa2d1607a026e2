"""Full-text search: safe query syntax, BM25 column weights, snippets, scopes, filters, decay, review blending.

Embeddings are off here (the conftest default), so these tests need no model.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from datetime import timedelta

import pytest
from conftest import FIXED_NOW, ROOT, make_service

from vault_sync.errors import InvalidInput
from vault_sync.scoring import decay_factor
from vault_sync.search import fts
from vault_sync.search.hybrid import search

RESULT_KEYS = {
    "path",
    "id",
    "title",
    "kind",
    "snippet",
    "score",
    "parts",
    "review",
    "status",
    "created",
    "last_used",
    "tags",
    "project",  # None: shared (docs/projects.md)
}


def paths(answer: dict) -> list[str]:
    return [r["path"] for r in answer["results"]]


def write_memory(vault, title, body, tags=("test",), last_used=FIXED_NOW, use_count=1, strength=1.0):
    fmt = "%Y-%m-%dT%H:%M:%SZ"
    text = (
        f"---\nid: {uuid.uuid4()}\ntags: [{', '.join(tags)}]\ncreated: {last_used.strftime(fmt)}\n"
        f"last_used: {last_used.strftime(fmt)}\nuse_count: {use_count}\nstrength: {strength}\nstatus: "
        f"active\n---\n{body}\n"
    )
    (vault / "STM" / f"{title}.md").write_text(text, encoding="utf-8")
    return f"STM/{title}.md"


def danger_last_used(svc, target: float = 0.25):
    """A last_used that puts a fresh (n=1, s=1) memory at `target` score at FIXED_NOW."""
    lo, hi = 0.0, 3650 * 86400.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if decay_factor(svc.params, mid) > target:
            lo = mid
        else:
            hi = mid
    return FIXED_NOW - timedelta(seconds=lo)


def test_result_shape_and_snippet(service):
    answer = search(service.engine, "postgres")
    assert answer["semantic"] is False and answer["notice"] is None
    assert "STM/Staging runs Postgres 16.md" in paths(answer)[:3]
    for r in answer["results"]:
        assert set(r) == RESULT_KEYS
        assert set(r["parts"]) == {"fts", "semantic", "decay"}
        assert r["parts"]["semantic"] is None
        assert r["score"] > 0
    staging = next(r for r in answer["results"] if r["path"] == "STM/Staging runs Postgres 16.md")
    assert "**Postgres**" in staging["snippet"]
    assert staging["id"] == "62f746b4-84e6-4ceb-95bd-447e7184d454"
    assert staging["kind"] == "stm" and staging["parts"]["decay"] > 0.9
    note = next(r for r in answer["results"] if r["kind"] == "note")
    assert note["parts"]["decay"] is None


def test_stemming_finds_other_word_forms(service):
    assert "STM/Atlas search reindex takes 40 minutes.md" in paths(search(service.engine, "rebuilding"))


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '""',
        '"postgres',
        'postgres"',
        'foo"bar',
        "-postgres",
        "postgres -staging",
        "*",
        "post*",
        "^postgres",
        "NEAR(postgres staging)",
        "NEAR",
        "postgres NEAR/2 staging",
        "title:postgres",
        "body:",
        ":",
        "(",
        ")",
        "(postgres",
        "postgres AND",
        "OR",
        "NOT postgres",
        "AND OR NOT",
        "a:b:c",
        "'; DROP TABLE notes; --",
        "{title body}: x",
        "\\",
        "%_",
        "\x00",
        "🙂 postgres",
        "Ünïcödé",
        " ",
        "",
        "+postgres",
        "postgres^2",
        "[[Staging runs Postgres 16]]",
    ],
)
def test_hostile_query_syntax_never_raises(service, query):
    answer = search(service.engine, query)
    assert isinstance(answer["results"], list)


def test_operators_are_plain_words(service):
    # '-' does not exclude: the staging note has both words and still comes back first
    assert paths(search(service.engine, "postgres -staging"))[0] == "STM/Staging runs Postgres 16.md"
    # a column filter is not a column filter: the word "title" is just a word
    assert "STM/Staging runs Postgres 16.md" in paths(search(service.engine, "title:postgres"))
    assert "STM/Staging runs Postgres 16.md" in paths(search(service.engine, "NEAR(postgres staging)"))
    # '*' is not a prefix operator: "post*" is the word "post", which the staging note lacks
    found = paths(search(service.engine, "post*"))
    assert "STM/Staging runs Postgres 16.md" not in found
    assert "STM/Sam wants weekly status in Slack.md" in found  # "a short Slack post"
    # NOT is a word, not an operator
    assert "STM/Staging runs Postgres 16.md" in paths(search(service.engine, "NOT postgres"))


def test_match_expression_quotes_every_token():
    assert fts.match_expression(fts.content_words('NEAR(x "y") -z* c:b')) == '"near" OR "x" OR "y" OR "z" OR "c" OR "b"'
    assert fts.content_words("what is the") == ["what", "is", "the"]  # only stopwords: keep them
    assert fts.content_words("what is the staging db") == ["staging", "db"]


def test_title_outweighs_tags_outweighs_body(vault):
    write_memory(vault, "Zanzibar gateway notes", "Some words about a gateway and its settings here.")
    write_memory(vault, "Gateway settings one", "Some words about a gateway and its settings here.", tags=("zanzibar",))
    write_memory(vault, "Gateway settings two", "Some words about zanzibar gateway and its settings here.")
    svc = make_service(vault)
    found = paths(search(svc.engine, "zanzibar", blend_review=False))
    assert found[:3] == ["STM/Zanzibar gateway notes.md", "STM/Gateway settings one.md", "STM/Gateway settings two.md"]


def test_coverage_prefers_notes_matching_more_words(service):
    hits = fts.search(service.store, "peanut dinner restaurant", fts.make_filters(service.engine))
    best = max(hits, key=lambda h: h.coverage)
    row = service.store.note("STM/Team dinner venue must be peanut-free.md")
    assert best.rowid == row["rowid"] and best.coverage == pytest.approx(1.0)
    assert all(0 <= h.coverage <= 1 for h in hits)


@pytest.mark.parametrize("walk", [fts.SCAN_PER_CANDIDATE, 0])  # walk each word's match list / seek per candidate
def test_coverage_agrees_with_each_words_whole_match_list(service, monkeypatch, walk):
    monkeypatch.setattr(fts, "SCAN_PER_CANDIDATE", walk)
    query = "postgres staging deploy team dinner peanut"
    hits = fts.search(service.store, query, fts.make_filters(service.engine))
    terms = fts.content_words(query)
    n = service.store.one("SELECT count(*) FROM notes")[0]
    matches = {
        t: {r[0] for r in service.store.query("SELECT rowid FROM fts WHERE fts MATCH ?", (fts.quote(t),))}
        for t in terms
    }
    weights = {t: fts.idf(n, len(m)) for t, m in matches.items()}
    for h in hits:
        expected = sum(w for t, w in weights.items() if h.rowid in matches[t]) / sum(weights.values())
        assert h.coverage == pytest.approx(min(1.0, expected))
    assert len({round(h.coverage, 6) for h in hits}) >= 3  # notes matching different words


def test_search_scope_keeps_its_kinds_and_all_leaves_out_the_archive(service):
    stm = search(service.engine, "atlas", limit=50, scope="stm")["results"]
    ltm = search(service.engine, "atlas", limit=50, scope="ltm")["results"]
    every = search(service.engine, "atlas", limit=50, scope="all")["results"]
    assert stm and {r["kind"] for r in stm} == {"stm"}
    assert ltm and {r["kind"] for r in ltm} == {"ltm"}
    assert {r["kind"] for r in every} == {"stm", "ltm", "note"}  # archive is left out of "all"
    assert search(service.engine, "mongodb")["results"] == []
    archived = search(service.engine, "mongodb", scope="archive")["results"]
    assert [r["path"] for r in archived] == ["Archive/Atlas v1 stored events in MongoDB.md"]
    assert {r["kind"] for r in search(service.engine, "atlas", limit=50, scope="memories")["results"]} == {"stm", "ltm"}
    with pytest.raises(InvalidInput):
        search(service.engine, "atlas", scope="everything")


def test_tag_filter_matches_nested_tags_and_ignores_hash_and_case(service):
    res = search(service.engine, "atlas", limit=50, tags=["#Project"])["results"]
    assert res
    for r in res:
        row = service.store.note(r["path"])
        assert any(t == "project" or t.startswith("project/") for t in service.store.tags_of(row["rowid"]))
    coffee = search(service.engine, "grind", tags=["coffee"])["results"]
    assert {r["path"] for r in coffee} <= {"STM/Coffee grinder setting 18 for pour-over.md", "LTM/Espresso recipe.md"}
    assert coffee
    assert search(service.engine, "grind", tags=["coffee", "recipe"])["results"][0]["path"] == "LTM/Espresso recipe.md"
    assert search(service.engine, "postgres", tags=["no-such-tag"])["results"] == []


def test_status_and_recency_filters(service):
    promoted = search(service.engine, "atlas", limit=50, status="promoted")["results"]
    assert promoted and {r["kind"] for r in promoted} == {"ltm"}
    recent = search(service.engine, "atlas", limit=50, scope="stm", since_days=1)["results"]
    assert recent
    for r in recent:
        row = service.store.note(r["path"])
        assert row["last_used"] >= "2026-11-19T12:00:00Z"
    older = {r["path"] for r in search(service.engine, "atlas", limit=50, scope="stm")["results"]}
    assert "STM/Backup restore drill took 47 minutes.md" in older - {r["path"] for r in recent}
    with pytest.raises(InvalidInput):
        search(service.engine, "atlas", since_days=-1)


def test_decay_weights_stm_gently(vault):
    write_memory(vault, "Quokka fresh", "The quokka enclosure opens at nine.", last_used=FIXED_NOW)
    write_memory(vault, "Quokka faded", "The quokka enclosure opens at nine.", last_used=FIXED_NOW - timedelta(days=60))
    svc = make_service(vault)
    res = search(svc.engine, "quokka enclosure", blend_review=False)["results"]
    assert [r["path"] for r in res] == ["STM/Quokka fresh.md", "STM/Quokka faded.md"]
    fresh, faded = res
    assert faded["parts"]["decay"] < 0.1 < fresh["parts"]["decay"]
    assert faded["score"] >= 0.7 * fresh["score"]  # faded, but still found and not buried


def test_review_blending_pulls_in_relevant_danger_zone_memory(vault):
    svc0 = make_service(vault, sync=False)
    when = danger_last_used(svc0)
    svc0.close()
    for i in range(6):
        write_memory(vault, f"Kiwi harvest notes {i}", f"Kiwi kiwi harvest plan number {i} for the orchard.")
    write_memory(vault, "Orchard ladder rule", "Check the ladder before the kiwi harvest.", last_used=when)
    write_memory(vault, "Fading unrelated fact", "The bicycle shed code is 4711.", last_used=when)
    svc = make_service(vault)
    due = svc.store.note("STM/Orchard ladder rule.md")
    from vault_sync.ageing import of_row

    assert of_row(svc.params, due, FIXED_NOW).state == "danger"
    plain = search(svc.engine, "kiwi harvest", limit=4, blend_review=False)["results"]
    assert "STM/Orchard ladder rule.md" not in [r["path"] for r in plain]
    assert not any(r["review"] for r in plain)
    blended = search(svc.engine, "kiwi harvest", limit=4)["results"]
    assert len(blended) == 4
    assert [r["path"] for r in blended].index("STM/Orchard ladder rule.md") == 2  # p, p, r, p
    flagged = [r for r in blended if r["review"]]
    assert [r["path"] for r in flagged] == ["STM/Orchard ladder rule.md"]
    assert "STM/Fading unrelated fact.md" not in [r["path"] for r in blended]
    # the irrelevant danger-zone memory is never blended in, even when nothing else matches
    assert "STM/Fading unrelated fact.md" not in paths(search(svc.engine, "orchard ladder", limit=10))


def test_a_pinned_memory_in_the_danger_zone_is_never_offered_for_review_in_search(vault):
    """A weak pinned memory keeps a danger-zone score forever; search finds it but never flags it
    for review (it never enters the review queue), while its unpinned twin is flagged."""
    for pinned in (True, False):
        name = "pinned" if pinned else "plain"
        path = write_memory(vault, f"Kiwi ladder {name}", f"Kiwi ladder rule {name}: check it.", strength=0.25)
        if pinned:
            note = vault / path
            note.write_text(
                note.read_text(encoding="utf-8").replace("status: active\n", "status: active\npinned: true\n")
            )
    svc = make_service(vault)
    try:
        res = {r["path"]: r for r in search(svc.engine, "kiwi ladder rule", limit=10)["results"]}
        assert res["STM/Kiwi ladder plain.md"]["review"] is True
        assert res["STM/Kiwi ladder pinned.md"]["review"] is False
    finally:
        svc.close()


def test_sample_danger_zone_memory_flagged_when_relevant(service):
    res = search(service.engine, "vpn split tunneling dns")["results"]
    vpn = next(r for r in res if r["path"] == "STM/VPN split tunneling breaks internal DNS.md")
    assert vpn["review"] is True
    assert not any(r["review"] for r in search(service.engine, "espresso recipe")["results"])


def test_limit_and_empty_queries(service):
    assert len(search(service.engine, "atlas", limit=3)["results"]) == 3
    assert search(service.engine, "   ")["results"] == []
    assert search(service.engine, "?!")["results"] == []


def test_import_does_not_load_torch():
    code = (
        "import sys, vault_sync.search, vault_sync.search.hybrid, vault_sync.search.cluster, "
        "vault_sync.ops.consolidate; print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_a_full_text_search_does_not_import_numpy(vault, tmp_path):
    """The command line opens the engine for every search: numpy would add ~80 ms to it."""
    code = (
        "import sys\nfrom conftest import make_service\nfrom pathlib import Path\n"
        f"svc = make_service(Path({str(vault)!r}), index_path=Path({str(tmp_path / 'i.sqlite3')!r}))\n"
        "found = svc.search('postgres')['results']\nsvc.close()\n"
        "print(bool(found), 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "tests", capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True False"
