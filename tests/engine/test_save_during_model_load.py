"""A save never waits for the embedding model: while the daemon's warm-up load is under way the
note is written and indexed at once, the checks that need vectors are left out (the word check
still names a fact it may replace), and the backfill gives the note its vector afterwards.

The load is real (a fresh all-MiniLM-L6-v2 Embedder); the test holds the loader's lock, so the
model stays "loading" for exactly as long as the test needs, whatever the machine's speed."""

from __future__ import annotations

import threading

from retrieval_set import semantic_service, shared_embedder

from vault_sync.index import queries
from vault_sync.search.embeddings import Embedder, missing_hashes, warm_model

RATE = "The public Atlas API allows 900 requests per minute per API key, with a burst of 100."
OTHER = "Sourdough starter gets fed twice a day with rye flour and water."


def _in_thread(fn, timeout: float = 120.0):
    """fn() in a worker thread; fails the test if it is still blocked after `timeout`."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    assert not worker.is_alive(), "the save waited for the model that was loading"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_a_save_while_the_model_loads_is_written_at_once_and_embedded_later(vault):
    svc = semantic_service(vault, shared_embedder())  # every existing note has its vector
    try:
        cold = Embedder()
        svc.use_embedder(cold)  # as in a daemon just started
        with cold._lock:  # the load cannot finish while the test holds this
            loader = warm_model(svc.engine, torch_threads=1)
            assert loader is not None and cold.loading
            one = _in_thread(lambda: svc.save(RATE, tags=["api"]))
            many = _in_thread(lambda: svc.save_many([{"text": OTHER}]))
            assert cold.loading and cold.calls == 0, "the model was used while it loaded"
        assert one["saved"] and one["near_duplicates"] == []
        # the word check stands in for the vectors: the old rate limit is still named
        assert [m["path"] for m in one["may_supersede"]] == ["STM/Atlas API rate limit is 600 requests per minute.md"]
        assert many["results"][0]["saved"]
        new_paths = {one["note"]["path"], many["results"][0]["note"]["path"]}
        assert all(svc.store.note(p) is not None for p in new_paths)  # indexed at once
        found = svc.search("sourdough rye starter", limit=3)["results"]
        assert found and found[0]["path"] in new_paths

        loader.join(120)
        assert cold.loaded
        pending = {
            queries.note_by_rowid(svc.store, rowid)["path"] for _, rowid in missing_hashes(svc.engine, cold.name)
        }
        assert new_paths <= pending  # no vector yet: the backfill's work
        svc.embed()  # what the daemon's background worker runs
        assert missing_hashes(svc.engine, cold.name) == []
        again = svc.save("The public Atlas API now allows 900 requests per minute per key, burst 100.")
        assert again["near_duplicates"], "with the model in, the vector check runs again"
    finally:
        svc.close()


def test_automatic_promotion_waits_for_the_model_without_holding_the_write_lock(vault):
    svc = semantic_service(vault, shared_embedder(), auto_promote=True, auto_gc=False)
    try:
        cold = Embedder()
        svc.use_embedder(cold)
        with cold._lock:
            warm_model(svc.engine, torch_threads=1)
            report = _in_thread(svc.run_lifecycle)
        assert "promote" not in report and report["postponed"] == ["promote: the embedding model is still loading"]
        preview = svc.promote_all(dry_run=True)
        assert preview.get("candidates") or preview.get("promoted"), (
            f"nothing to promote: the test proves nothing ({preview})"
        )
    finally:
        svc.close()


def test_a_save_never_loads_the_model_in_its_own_thread(vault):
    """No load started (as in a CLI process, or a request that would beat the daemon's loader):
    the save is written and indexed without the model, and nothing starts loading it."""
    from conftest import make_service

    svc = make_service(vault, embeddings=True)
    try:
        cold = Embedder()
        svc.use_embedder(cold)
        one = svc.save(RATE, tags=["api"])
        many = svc.save_many([{"text": OTHER}])
        assert one["saved"] and many["results"][0]["saved"]
        assert not cold.loaded and not cold.loading and cold.calls == 0, "a save loaded the model"
        assert [m["path"] for m in one["may_supersede"]] == ["STM/Atlas API rate limit is 600 requests per minute.md"]
        assert svc.store.note(one["note"]["path"]) is not None  # indexed at once
    finally:
        svc.close()
