"""The first semantic search on a never-embedded index does not wait behind the
background backfill. The backfill encodes in small slices and a waiting query takes the
model before the next one (vault_sync/search/turns.py). With the real model; the proof is
the backfill's own progress when the answer came, not a wall-clock threshold."""

from __future__ import annotations

import threading

from conftest import make_service
from retrieval_set import shared_embedder

from vault_sync.search.embeddings import BACKGROUND_SLICE, Embedder, missing_hashes
from vault_sync.search.hybrid import search
from vault_sync.search.turns import Turns

NOTES = 300


def _vault(root):
    stm = root / "STM"
    stm.mkdir(parents=True)
    topics = ["Postgres", "Redis", "Kafka", "the espresso machine", "the garden", "the VPN", "hiring", "the budget"]
    for i in range(NOTES):
        topic = topics[i % len(topics)]
        (stm / f"Fact {i:03d}.md").write_text(
            f"---\ntags: [bench]\n---\nFact {i} about {topic}: the team decided on option {i % 7} "
            f"after a long review of {topic} with several people in the weekly meeting.\n",
            encoding="utf-8",
        )
    (stm / "Staging runs Postgres 16.md").write_text(
        "---\ntags: [infra]\n---\nThe staging environment runs Postgres 16 since the March upgrade.\n", encoding="utf-8"
    )


def test_query_goes_before_the_backfill(tmp_path):
    shared = shared_embedder()
    vault = tmp_path / "vault"
    _vault(vault)
    svc = make_service(vault, embeddings=True)
    try:
        own = Embedder(shared.name)
        own._model = shared._model  # the loaded weights; fresh counters and turns
        svc.use_embedder(own)
        total = len(missing_hashes(svc.engine, shared.name))
        assert total == NOTES + 1
        started = threading.Event()
        report: dict = {}

        def run() -> None:
            report.update(svc.embed())

        # the backfill is under way (its first slice has the model) before the query is issued
        original = svc.embedder.turns.hold

        def hold(urgent):
            if not urgent:
                started.set()
            return original(urgent)

        svc.embedder.turns.hold = hold  # type: ignore[method-assign]
        worker = threading.Thread(target=run)
        worker.start()
        assert started.wait(60)
        answer = search(svc.engine, "which Postgres version does staging run", limit=5)
        encoded_at_answer = svc.embedder.encoded - 1  # the query's own text
        turns = svc.embedder.turns
        worker.join(300)
        assert not worker.is_alive() and report["embedded"] == total

        # the answer came while most of the backfill was still to do
        assert encoded_at_answer < total // 2, (encoded_at_answer, total)
        assert turns.urgent_turns == 1 and turns.most_overtaken == 0
        assert turns.background_turns >= total // BACKGROUND_SLICE
        # semantic on what is embedded, and it says the rest was full text
        assert answer["semantic"] is True
        assert "partly from full text" in (answer["notice"] or "")
        assert answer["results"][0]["path"] == "STM/Staging runs Postgres 16.md"
        after = search(svc.engine, "which Postgres version does staging run", limit=5)
        assert after["notice"] is None and after["results"][0]["parts"]["semantic"] is not None
    finally:
        svc.close()


def test_a_waiting_query_blocks_new_background_turns():
    """Without the model: a background turn holds; a query and another background batch
    wait; the query gets the model first."""
    turns = Turns()
    order: list[str] = []
    release = threading.Event()
    holding = threading.Event()

    def background(name: str, hold: bool) -> None:
        with turns.hold(urgent=False):
            if hold:
                holding.set()
                release.wait(10)
            order.append(name)

    def query() -> None:
        with turns.hold(urgent=True):
            order.append("query")

    first = threading.Thread(target=background, args=("first", True))
    first.start()
    assert holding.wait(10)
    q = threading.Thread(target=query)
    q.start()
    while turns._urgent_waiting == 0:  # the query is queued
        threading.Event().wait(0.01)
    second = threading.Thread(target=background, args=("second", False))
    second.start()
    release.set()
    for t in (first, q, second):
        t.join(10)
    assert order == ["first", "query", "second"]
    assert turns.most_overtaken == 0


def test_background_slices_keep_each_text_with_its_vector():
    """The backfill's slices are sorted by length for speed; the vectors come back in order."""
    import numpy as np

    shared = shared_embedder()
    embedder = Embedder(shared.name)
    embedder._model = shared._model
    texts = [("word " * (3 + (i * 7) % 40)) + f"fact number {i}" for i in range(3 * BACKGROUND_SLICE + 3)]
    together = embedder.encode(texts)
    sliced = embedder.encode(texts, background=True)
    assert embedder.turns.background_turns == 4
    assert np.allclose(together, sliced, atol=1e-4)
