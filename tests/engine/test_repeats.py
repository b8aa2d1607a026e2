"""Repeats (ops/repeats.py): a save of a fact already held in other words reinforces its
memory and says so; a save that adds or changes a detail is a memory of its own. With the real
all-MiniLM-L6-v2 for the thresholds, words only while the model is not loaded."""

from __future__ import annotations

import threading

from conftest import make_service
from retrieval_set import shared_embedder

from bridge.bench.repeat_bench import repeat_figures
from vault_sync.details import differs, numbers, word_closeness
from vault_sync.note import parse_note
from vault_sync.ops.may_supersede import CHANGE_WORDS
from vault_sync.search.embeddings import Embedder, warm_model

# the figures the issue asks for, on the held-out part; the tuning part measured 0.92 / 1.0
# (model) when the thresholds were set, the held-out part 0.925 / 1.0 on its first measure
HELD_OUT = {"model": (0.9, 0.95), "words": (0.8, 0.95)}


def _service(vault, index, embeddings):
    svc = make_service(vault, index_path=index, embeddings=embeddings)
    if embeddings:
        svc.use_embedder(shared_embedder())
    return svc


def _model_service(tmp_path, **overrides):
    root = tmp_path / "v"
    (root / "STM").mkdir(parents=True)
    svc = make_service(root, embeddings=True, **overrides)
    svc.use_embedder(shared_embedder())
    return svc


def _stm(svc) -> list[str]:
    return sorted(p.name for p in (svc.settings.vault / "STM").glob("*.md"))


def _use_count(svc, path: str) -> int:
    return parse_note(path, (svc.settings.vault / path).read_bytes()).fields.use_count


def test_repeat_recognition_on_the_labelled_set(tmp_path, record_property):
    figures = repeat_figures(tmp_path, True, _service)
    for name, r in figures.items():
        held = r["held_out"]
        summary = (
            f"{name}: held out: reinforced {held['reinforced']:.3f} separate {held['separate']:.3f}; "
            f"tuning: reinforced {r['reinforced']:.3f} separate {r['separate']:.3f}"
        )
        print(summary)
        record_property(f"repeats_{name}", summary)
    for name, r in figures.items():
        held, (reinforced, separate) = r["held_out"], HELD_OUT[name]
        assert held["paraphrases"] >= 40 and held["different"] >= 40 and r["paraphrases"] >= 50
        assert held["reinforced"] >= reinforced, (name, held["misses"])
        assert held["separate"] >= separate, (name, held["merged"])
        assert r["separate"] >= separate, (name, r["merged"])


def test_a_fact_in_other_words_reinforces_its_memory_and_says_so(tmp_path):
    svc = _model_service(tmp_path)
    try:
        old = svc.save("Sam is allergic to peanuts")["note"]
        answer = svc.save("Sam has a peanut allergy")
        assert answer["saved"] is False and answer["reinforced"] is True
        assert answer["duplicate_of"] == old["path"] and answer["repeat_of"]["by"] == "model"
        assert 0.7 <= answer["similarity"] < 1.0
        assert answer["message"].startswith(f"reinforced {old['id']} (similarity {answer['similarity']:.2f})")
        assert _stm(svc) == ["Sam is allergic to peanuts.md"]  # no copy
        assert _use_count(svc, old["path"]) == 2  # the fact's use shows in its memory's score
        assert "repeat_check" not in answer
    finally:
        svc.close()


def test_a_changed_or_added_detail_is_a_memory_of_its_own(tmp_path):
    svc = _model_service(tmp_path)
    try:
        svc.save("The team standup is at 9:30 every weekday")
        svc.save("Alice is vegetarian")
        for text in (
            "The team standup is at 10:00 every weekday",  # a number
            "The team standup is at 9:30 every weekday in room 4B",  # a detail added
            "The design standup is at 9:30 every weekday",  # another subject
            "Alice is not vegetarian",  # negated
            "Bob is vegetarian",  # a name
        ):
            answer = svc.save(text)
            assert answer["saved"] is True and answer["reinforced"] is False, text
        assert len(_stm(svc)) == 7
    finally:
        svc.close()


def test_with_supersedes_the_caller_says_it_is_new(tmp_path):
    svc = _model_service(tmp_path)
    try:
        old = svc.save("Sam is allergic to peanuts")["note"]
        answer = svc.save("Sam has a peanut allergy", supersedes=[old["id"]])
        assert answer["saved"] and answer["superseded"]
        # a superseded memory is not the current fact: a later wording reinforces the current one
        again = svc.save("Sam's allergy is to peanuts")
        assert again["reinforced"] and again["duplicate_of"] == answer["note"]["path"]
    finally:
        svc.close()


def test_the_option_turns_it_off(tmp_path):
    svc = _model_service(tmp_path, reinforce_repeats=False)
    try:
        old = svc.save("Sam is allergic to peanuts")["note"]
        assert svc.save("Sam has a peanut allergy")["saved"] is True
        exact = svc.save("sam is allergic to  peanuts")  # the exact duplicate check stays
        assert exact["reinforced"] and exact["duplicate_of"] == old["path"]
        assert exact["message"].startswith(f"reinforced {old['id']} (similarity 1.00)")
        assert len(_stm(svc)) == 2
    finally:
        svc.close()


def test_while_the_model_loads_words_only_and_the_answer_says_so(tmp_path):
    root = tmp_path / "v"
    (root / "STM").mkdir(parents=True)
    svc = make_service(root, embeddings=True)
    try:
        cold = Embedder()
        svc.use_embedder(cold)
        with cold._lock:  # the load cannot finish while the test holds this
            loader = warm_model(svc.engine, torch_threads=1)
            assert loader is not None and cold.loading
            box: dict = {}
            worker = threading.Thread(
                target=lambda: box.update(
                    old=svc.save("The team standup is at 9:30 every weekday"),
                    same=svc.save("Every weekday the team standup is at 9:30"),
                    reworded=svc.save("Standups happen daily on workdays at half past nine"),
                ),
                daemon=True,
            )
            worker.start()
            worker.join(120)
            assert not worker.is_alive(), "a save waited for the model"
            assert cold.calls == 0
        old, same, reworded = box["old"], box["same"], box["reworded"]
        assert same["reinforced"] and same["repeat_of"]["by"] == "words"
        assert same["message"].startswith(f"reinforced {old['note']['id']} (similarity 1.00)")
        assert "compared by words: the model is not loaded yet" in same["message"]
        # what only the model would recognise is saved, and the answer says the check was partial
        assert reworded["saved"] and "the model is not loaded yet" in reworded["repeat_check"]
        loader.join(120)
    finally:
        svc.close()


def test_save_many_reinforces_repeats_once_per_batch_id(tmp_path):
    svc = _model_service(tmp_path)
    try:
        old = svc.save("Sam is allergic to peanuts")["note"]
        items = [{"text": "Sam has a peanut allergy"}, {"text": "The office closes at 7 pm"}]
        first = svc.save_many(items, batch_id="b1")
        assert first["saved"] == 1 and first["reinforced"] == 1
        repeat = first["results"][0]
        assert repeat["duplicate_of"] == old["path"] and repeat["message"].startswith(f"reinforced {old['id']}")
        assert _use_count(svc, old["path"]) == 2
        retry = svc.save_many(items, batch_id="b1")  # the answer was lost: the same batch again
        assert retry["results"][0]["already_saved"] and not retry["results"][0]["reinforced"]
        assert _use_count(svc, old["path"]) == 2  # counted once
    finally:
        svc.close()


def test_a_person_splits_a_memory_by_editing(tmp_path):
    """A reinforced wording is not stored; a person who wants two memories writes the second as
    a note of its own (or edits one into two): notes written by hand are never merged."""
    svc = _model_service(tmp_path)
    try:
        old = svc.save("Sam is allergic to peanuts")["note"]
        assert svc.save("Sam has a peanut allergy")["reinforced"]
        split = svc.settings.vault / "STM" / "Sam has a peanut allergy.md"
        split.write_text("Sam has a peanut allergy\n", encoding="utf-8")
        svc.sync()
        assert svc.store.note("STM/Sam has a peanut allergy.md") is not None
        assert svc.store.note(old["path"]) is not None  # both memories, side by side
        again = svc.save("Sam has a peanut allergy")  # now the same text: the person's own note
        assert again["reinforced"] and again["duplicate_of"] == "STM/Sam has a peanut allergy.md"
    finally:
        svc.close()


def test_details_tell_facts_apart():
    assert differs("Redis session TTL is 60 minutes", "Redis session TTL is 30 minutes") == "number"
    assert differs("Code reviews need three approvals", "Code reviews need two approvals") == "number"
    assert differs("Our database is in us-east-1", "Our database is in eu-west-1") == "number"
    assert differs("Our Django apps run on Python 3.12", "Our Django apps run on Python 3.11") == "number"
    assert differs("Alice is not vegetarian", "Alice is vegetarian") == "negation"
    assert differs("Priya doesn't like async reviews", "Priya likes async reviews") == "negation"
    assert differs("Feature flags live in Unleash", "Feature flags live in LaunchDarkly") == "name"
    assert differs("The standup moved to room 4B", "The standup is in room 4B", CHANGE_WORDS) == "change"
    assert differs("Lena takes oat milk in her tea", "Lena takes oat milk in her coffee") == "swap"
    assert differs("Dana is my manager and also my mentor", "Dana is my manager") == "swap"
    assert differs("Sam is allergic to peanuts and carries an EpiPen daily", "Sam is allergic to peanuts") in (
        "name",
        "detail",
        "swap",
    )
    # the same fact in other words: nothing tells them apart
    assert differs("Every weekday the team standup is at 9:30", "The team standup is at 9:30 every weekday") is None
    assert differs("Password for the guest Wi-Fi: sunflower88", "The guest Wi-Fi password is sunflower88") is None
    assert differs("My passport is valid until March 2029", "My passport expires in March 2029") is None
    assert differs("Merging requires 2 approving reviews", "Code reviews need two approvals before merging") is None
    assert numbers("8 A100 cards") == numbers("8 A100s") == {"8", "a100"}
    # scripts written without spaces: no words to compare, so only the same characters repeat
    assert differs("東京の会議は火曜日です", "東京の会議は月曜日です") == "unspaced"
    assert differs("東京の会議は月曜日です。", "東京の会議は月曜日です") is None
    assert word_closeness("東京の会議は火曜日です", "東京の会議は月曜日です") == 0.0


def test_unspaced_scripts_repeat_only_their_own_characters(tmp_path):
    root = tmp_path / "w"
    (root / "STM").mkdir(parents=True)
    svc = make_service(root)  # the word check: words cannot be found without spaces
    try:
        first = svc.save("東京の会議は毎週月曜日の午前です")
        other = svc.save("東京の会議は毎週火曜日の午前です")
        assert other["saved"], "another day is another fact"
        again = svc.save("東京の会議は毎週月曜日の午前です。")
        assert again["reinforced"] and again["duplicate_of"] == first["note"]["path"]
    finally:
        svc.close()
