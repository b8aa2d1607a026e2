"""The daemon warms the embedding model in the background; a search while
it loads answers at once from full text and says so, and the next one after it is semantic.
With the real all-MiniLM-L6-v2 (a fresh Embedder, so the load is real)."""

from __future__ import annotations

import time

from retrieval_set import semantic_service, shared_embedder

from vault_sync.search.embeddings import Embedder, warm_model
from vault_sync.search.hybrid import MODEL_LOADING, search


def test_search_during_model_load_is_full_text_then_semantic(vault):
    import torch

    threads_before = torch.get_num_threads()
    svc = semantic_service(vault, shared_embedder())  # the vault's vectors are in the index
    try:
        svc.use_embedder(Embedder())  # a cold model, as in a daemon just started
        loader = warm_model(svc.engine, torch_threads=1)  # as the daemon does
        assert loader is not None and svc.embedder.loading

        t0 = time.perf_counter()
        early = search(svc.engine, "which Postgres version does staging run", limit=5)
        waited = time.perf_counter() - t0
        assert svc.embedder.loading, "the model loaded before the search: the test proves nothing"
        assert early["semantic"] is False and early["notice"] == MODEL_LOADING
        assert early["results"] and early["results"][0]["path"] == "STM/Staging runs Postgres 16.md"
        assert all(r["parts"]["semantic"] is None for r in early["results"])
        assert waited < 1.0, f"the search waited {waited:.2f}s for the model"

        loader.join(120)
        assert svc.embedder.loaded and not svc.embedder.loading
        torch.set_num_threads(2)
        model = svc.embedder._model
        real_encode, during = model.encode, []

        def encode(*args, **kwargs):  # torch's thread count while the query is encoded, in that thread
            during.append(torch.get_num_threads())
            return real_encode(*args, **kwargs)

        model.encode = encode
        try:
            late = search(svc.engine, "which Postgres version does staging run", limit=5)
        finally:
            del model.encode
        assert during == [1]  # capped in the encoding thread (the busy-machine latency fix)
        assert late["semantic"] is True and late["notice"] is None
        assert isinstance(late["results"][0]["parts"]["semantic"], float)
        assert warm_model(svc.engine) is None  # loaded: nothing more to start
    finally:
        torch.set_num_threads(threads_before)
        svc.close()


def test_warm_model_is_off_without_embeddings(vault):
    from conftest import make_service

    svc = make_service(vault)  # embeddings off
    try:
        assert warm_model(svc.engine) is None
        assert search(svc.engine, "Postgres", limit=3)["notice"] is None
    finally:
        svc.close()


def test_the_daemon_starts_its_model_loader_before_it_accepts_a_request(vault, tmp_path):
    """The loader's start is logged before the daemon names itself in the bridge file and
    serves: no request can arrive while no load is under way and load the model itself. The
    model setting names a missing folder, so the load fails at once without importing torch."""
    from daemon_util import Daemon

    d = Daemon(
        vault, tmp_path / "home", MNEMOVAULT_EMBEDDINGS="true", MNEMOVAULT_EMBEDDING_MODEL=str(tmp_path / "none")
    )
    try:
        d.start()
        log = d.log_text()
    finally:
        d.close()
    loading, serving = log.find("embedding model: loading in the background"), log.find("serving ")
    assert 0 <= loading < serving, log[-2000:]
