"""Update detection (`may_supersede`) on the labelled set of bridge/bench/update_set.py: a new
memory that changes a fact names the old one; a related new fact names nothing. Model on (the
real all-MiniLM-L6-v2) and off (word overlap), each with its own floors."""

from __future__ import annotations

import pytest
from conftest import make_service
from retrieval_set import shared_embedder

from bridge.bench.update_bench import update_figures
from vault_sync.ops.may_supersede import candidates, one_slot, words

# the figures measured when the weights were set, less a little slack (update_set.py, README);
# re-measured by `mnemovault bench` (the update-detection rows; `--quick` gives the model-off one)
FLOORS = {
    True: {"recall": 0.88, "precision": 0.9, "false_alarms": 0.1, "held_out": 0.8},
    False: {"recall": 0.87, "precision": 0.85, "false_alarms": 0.1, "held_out": 0.8},
}


def _empty(tmp_path, name):
    root = tmp_path / name
    (root / "STM").mkdir(parents=True)
    return root


def _service(vault, index, embeddings):
    svc = make_service(vault, index_path=index, embeddings=embeddings)
    if embeddings:
        svc.use_embedder(shared_embedder())  # the bench loads it from the settings; here once per session
    return svc


def test_update_detection_on_the_labelled_set(tmp_path, record_property):
    """The bench's section, model off and on, each against its floors."""
    figures = update_figures(tmp_path, True, _service)
    for name, r in figures.items():
        held = r["held_out"]
        summary = (
            f"{name}: recall {r['recall']:.3f} precision {r['precision']:.3f} false alarms {r['false_alarms']:.3f}; "
            f"held out: recall {held['recall']:.3f} precision {held['precision']:.3f}; "
            f"kinds held out: recall {r['kinds_held_out']['recall']:.3f} "
            f"precision {r['kinds_held_out']['precision']:.3f}"
        )
        print(summary)
        record_property(f"update_detection_{name}", summary)
    for name, r in figures.items():
        floor = FLOORS[name == "model"]
        held = r["held_out"]
        assert r["updates"] >= 120 and r["negatives"] >= r["updates"]
        assert r["recall"] >= max(0.85, floor["recall"]), (name, r["misses"])
        assert r["precision"] >= floor["precision"], (name, r["wrong"])
        assert r["false_alarms"] <= floor["false_alarms"], (name, r["wrong"])
        assert held["recall"] >= floor["held_out"] and held["precision"] >= floor["held_out"], (
            name,
            held["misses"],
            held["wrong"],
        )
    # updates as people write them (policy reversed, verb of change, component replaced), on the
    # part written apart from the tuning: the goal with the model, a lower floor without
    kinds = {name: r["kinds_held_out"] for name, r in figures.items()}
    for name, floor in (("model", 0.85), ("words", 0.75)):
        k = kinds[name]
        assert k["updates"] >= 24 and k["negatives"] >= 24
        assert k["recall"] >= floor and k["precision"] >= floor, (name, k["misses"], k["wrong"])


def test_one_slot_is_one_run_of_changed_words():
    assert one_slot(words("The standup is at 10:30 every weekday"), words("The standup is at 9:00 every weekday"))
    assert one_slot(words("The landlord's name is Mrs. Albers"), words("The landlord's name is Mr. Fischer"))
    # another subject with another value: two runs
    assert not one_slot(
        words("The support queue has 5 agents on weekends"), words("The support queue has 15 agents on weekdays")
    )
    assert not one_slot(words("Alice is vegetarian"), words("Alice leads the mobile app team"))  # less than half kept


def test_a_given_vector_answers_as_the_computed_one(tmp_path):
    from vault_sync.search.embeddings import query_vector

    svc = make_service(_empty(tmp_path, "w"), embeddings=True)
    try:
        svc.use_embedder(shared_embedder())
        old = svc.save("The staging database runs Postgres 14")["note"]
        svc.save("The garden needs watering twice a week in summer")
        new = "We upgraded the staging database to Postgres 16"
        computed = candidates(svc.engine, new, None, [])
        assert [c["path"] for c in computed] == [old["path"]]
        assert candidates(svc.engine, new, None, [], query_vector(svc.engine, new)) == computed
        saved = svc.save(new)
        assert [m["path"] for m in saved["may_supersede"]] == [old["path"]]
        assert not svc.save("The garden hose is in the shed").get("may_supersede")
    finally:
        svc.close()


@pytest.mark.parametrize("embeddings", [False, True], ids=["words", "model"])
def test_save_many_names_what_each_item_may_replace(tmp_path, embeddings):
    svc = _service(_empty(tmp_path, "b"), tmp_path / "b.sqlite3", embeddings)
    try:
        olds = svc.save_many(
            [
                {"text": "The team standup is at 9:00 every weekday"},
                {"text": "Our household has two cats"},
                {"text": "The garden needs watering twice a week in summer"},
            ]
        )["results"]
        answer = svc.save_many(
            [
                {"text": "The team standup is at 10:30 every weekday"},
                {"text": "We adopted a third cat, so there are three now"},
                {"text": "The team standup moved to 11:00", "supersedes": [olds[0]["note"]["id"]]},  # named already
                {"text": "Lunch on Fridays is usually pizza with the team"},
            ]
        )["results"]
        assert [m["path"] for m in answer[0]["may_supersede"]] == [olds[0]["note"]["path"]]
        assert "supersede_memory" in answer[0]["may_supersede_hint"]
        if embeddings:  # one shared word ("cat"): since the change bonus without a model was lowered to keep
            # its false alarms down on the update kinds, the word check misses it (docs/update-detection.md)
            assert [m["path"] for m in answer[1]["may_supersede"]] == [olds[1]["note"]["path"]]
        assert "may_supersede" not in answer[2] and answer[2]["superseded"]
        assert "may_supersede" not in answer[3]
    finally:
        svc.close()


def test_the_bonuses_read_short_statements_only(tmp_path):
    svc = make_service(_empty(tmp_path, "s"))
    try:
        svc.save("The team standup is at 9:00 every weekday")
        assert svc.save("The team standup moved to 10:30 every weekday").get("may_supersede")
        # the same words lost in a long text: its "moved" no longer counts as saying a change
        filler = " ".join(f"word{i}" for i in range(40))
        assert not svc.save(f"The team standup moved to 10:30. {filler}").get("may_supersede")
    finally:
        svc.close()


def test_a_model_that_cannot_load_falls_back_to_words(tmp_path):
    from vault_sync.search.embeddings import Embedder

    svc = make_service(_empty(tmp_path, "f"), embeddings=True)
    try:
        broken = Embedder()
        broken.error = "the model files are missing"  # load() raises EmbeddingUnavailable at once
        svc.use_embedder(broken)
        old = svc.save("The team standup is at 9:00 every weekday")["note"]
        saved = svc.save("The team standup is at 10:30 every weekday")
        assert [m["path"] for m in saved["may_supersede"]] == [old["path"]]
    finally:
        svc.close()
