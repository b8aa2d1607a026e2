"""The LoCoMo bench's code path on a tiny conversation written here (the real data is never
read in the default run), with its figures checked against a hand count."""

from __future__ import annotations

import json

import pytest

from bridge.bench.locomo import render, run_locomo, score_question
from bridge.bench.locomo_data import load_conversation

CONVERSATION = {
    "speaker_a": "Ann",
    "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a greyhound called Biscuit last week."},
        {"speaker": "Bob", "dia_id": "D1:2", "text": "That is lovely, how is the puppy settling in?"},
        {
            "speaker": "Ann",
            "dia_id": "D1:3",
            "text": "Biscuit sleeps on the sofa all day.",
            "img_url": ["x"],
            "blip_caption": "a photo of a dog on a couch",
        },
    ],
    "session_2_date_time": "10:02 am on 3 June, 2023",
    "session_2": [
        {"speaker": "Bob", "dia_id": "D2:1", "text": "I started learning the cello in March."},
        {"speaker": "Ann", "dia_id": "D2:2", "text": "Wonderful, which teacher do you have?"},
        {"speaker": "Bob", "dia_id": "D2:3", "text": "Mrs Kowalski teaches me every Tuesday."},
    ],
    "qa": [
        {"question": "What is the name of Ann's greyhound?", "evidence": ["D1:1"], "category": 4},
        {"question": "Where does Biscuit sleep?", "evidence": ["D1:3", "D2:2"], "category": 4},
        {"question": "When did Bob start learning the cello?", "evidence": ["D2:1"], "category": 2},
        {"question": "Where does Biscuit sleep, and since when?", "evidence": ["D1:1"], "category": 2},
        {"question": "Who teaches Bob the cello?", "evidence": ["D2:1; D2:3"], "category": 1},
        {"question": "Does anyone keep a pet?", "evidence": ["D1:1", "D9:9"], "category": 3},
        {"question": "What is Bob's favourite colour?", "evidence": [], "category": 5},
    ],
}


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "locomo"
    d.mkdir()
    (d / "tiny.json").write_text(json.dumps(CONVERSATION), encoding="utf-8")
    return d


def test_loading_splits_joined_evidence_and_drops_adversarial(folder):
    conv = load_conversation(folder / "tiny.json")
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"]
    assert conv.turns[0].memory_text() == "Ann on 8 May 2023: I adopted a greyhound called Biscuit last week."
    assert conv.turns[2].memory_text().endswith("[shares an image: a photo of a dog on a couch]")
    assert conv.turns[3].said_at.isoformat() == "2023-06-03T10:02:00+00:00"
    assert len(conv.questions) == 6  # category 5 left out
    assert conv.questions[4].evidence == ["D2:1", "D2:3"]  # "D2:1; D2:3" split
    assert conv.questions[5].evidence == ["D1:1"]  # an id no turn has is dropped


def test_score_question_by_hand():
    assert score_question(["a", "b", "c"], ["b", "z"]) == (1.0, 0.5, 0.5)
    assert score_question(["x"] * 5 + ["b"], ["b"]) == (0.0, 0.0, 1 / 6)
    assert score_question([], ["b"]) == (0.0, 0.0, 0.0)


def test_full_text_figures_match_a_hand_count(folder):
    result = run_locomo(folder, embeddings=False, cache_dir=None)
    assert result["conversations"]["tiny"]["turns"] == 6
    # per question (hit, recall, rr): greyhound (1, 1, 1); Biscuit sleep: D1:3 first, D2:2 not
    # found (1, .5, 1); cello (1, 1, 1); Biscuit sleep/since: D1:3 first, D1:1 second (1, 1, .5);
    # who teaches: both turns in the top 5 (1, 1, 1); pet: no word in common (0, 0, 0)
    # The engine differs in one place: turns are saved with their conversation and time, and
    # for "Biscuit sleep/since" the turn said between D1:1 and D1:3 (a minute from each)
    # gains from both neighbours and ranks second: D1:1 third (1, 1, 1/3)
    for name, temporal_rr in (("full text (engine)", (1 + 1 / 3) / 2), ("BM25", 0.75)):
        t = result["rankers"][name]
        assert t["single-hop"] == {"n": 2, "hit@5": 1.0, "recall@5": 0.75, "mrr": 1.0}, name
        assert t["temporal"] == {"n": 2, "hit@5": 1.0, "recall@5": 1.0, "mrr": pytest.approx(temporal_rr)}, name
        assert t["multi-hop"] == {"n": 1, "hit@5": 1.0, "recall@5": 1.0, "mrr": 1.0}, name
        assert t["open-domain"] == {"n": 1, "hit@5": 0.0, "recall@5": 0.0, "mrr": 0.0}, name
        assert t["overall"]["n"] == 6
        assert t["overall"]["hit@5"] == pytest.approx(5 / 6)
        assert t["overall"]["recall@5"] == pytest.approx(4.5 / 6)
        assert t["overall"]["mrr"] == pytest.approx((3 + 2 * temporal_rr) / 6)
    lines = []
    render(result, lines.append)
    assert any(line.split()[:2] == ["overall", "6"] for line in lines)


def test_with_the_model_vectors_come_from_the_cache_on_a_rerun(folder, tmp_path):
    from retrieval_set import shared_embedder

    embedder = shared_embedder()
    cache = tmp_path / "cache"
    first = run_locomo(folder, cache_dir=cache, embedder=embedder)
    assert first["conversations"]["tiny"]["vectors"]["encoded"] == 6
    calls = embedder.calls
    second = run_locomo(folder, cache_dir=cache, embedder=embedder)
    assert second["conversations"]["tiny"]["vectors"] == {
        **second["conversations"]["tiny"]["vectors"],
        "from_cache": 6,
        "encoded": 0,
    }
    assert embedder.calls == calls  # turns and queries both came from the cache
    assert second["rankers"] == first["rankers"]
    # meaning without a shared word: the pet question finds the greyhound turn
    assert second["rankers"]["MiniLM"]["open-domain"]["hit@5"] == 1.0
    assert set(second["rankers"]) == {"hybrid (engine)", "full text (engine)", "BM25", "MiniLM"}


def test_the_batch_save_is_timed_with_every_turn_encoded(folder, tmp_path):
    from retrieval_set import shared_embedder

    embedder = shared_embedder()
    result = run_locomo(folder, cache_dir=tmp_path / "cache", embedder=embedder, batch_turns=4)
    batch = result["batch_save"]
    # the first four turns, all saved and all given a vector by the save itself (none cached)
    assert batch["turns"] == batch["saved"] == batch["vectors"] == 4
    assert batch["save_s"] > 0 and batch["encode_s"] > 0
    lines: list[str] = []
    render(result, lines.append)
    assert any(line.startswith("batch save (save_many") and "4 turns" in line for line in lines)
    assert run_locomo(folder, embeddings=False, cache_dir=None, batch_turns=4)["batch_save"] is None
