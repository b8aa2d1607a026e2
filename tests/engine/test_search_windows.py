"""Conversation windows (vault_sync/index/windows.py): each memory said in a conversation is
indexed a second time with the turns said around it, and search adds that match to its own.
Real files, a real index and the engine's own save, edit and delete paths."""

from __future__ import annotations

import sqlite3

from conftest import assert_index_matches_rebuild, make_service

from vault_sync.index import windows
from vault_sync.search import hybrid

TURNS = [
    "We finally reached the glassblowing museum this morning.",
    "Was it the one on Murano?",
    "Yes! And I came home with a blue vase.",
    "Lovely. My sister keeps asking about our cello lessons.",
    "She should come along next Tuesday.",
    "Did you book the train back?",
]


def _save(svc, turns=TURNS, chat="trip", start_minute=0, gap_s=60):
    items = [
        {
            "text": t,
            "conversation": chat,
            "said_at": f"2023-05-08T10:{(start_minute * 60 + i * gap_s) // 60:02d}:{(i * gap_s) % 60:02d}Z",
        }
        for i, t in enumerate(turns)
    ]
    return [r["note"]["path"] for r in svc.save_many(items)["results"]]


def _window(svc, path) -> str | None:
    row = svc.store.note(path)
    with svc.store.reading() as db:
        return windows.row_of(db, row["rowid"])


def _holds(svc, path) -> list[int]:
    """Which of TURNS the window of `path` holds, by position."""
    text = _window(svc, path) or ""
    return [i for i, t in enumerate(TURNS) if t in text]


def test_a_turn_is_indexed_with_two_turns_either_side(empty_vault):
    svc = make_service(empty_vault)
    paths = _save(svc)
    plain = svc.save("A memory said in no conversation")
    assert _holds(svc, paths[0]) == [0, 1, 2]
    assert _holds(svc, paths[2]) == [0, 1, 2, 3, 4]
    assert _holds(svc, paths[5]) == [3, 4, 5]
    assert _window(svc, plain["note"]["path"]) is None
    assert_index_matches_rebuild(svc)
    svc.close()


def test_turns_of_another_conversation_or_said_much_later_are_not_in_the_window(empty_vault):
    svc = make_service(empty_vault)
    paths = _save(svc, TURNS[:3], gap_s=240)  # 0, 4 and 8 minutes: the first and last are 8 minutes apart
    other = _save(svc, ["Invoices are sorted, the glassblowing quote is in."], chat="work")
    assert _holds(svc, paths[0]) == [0, 1]
    assert _holds(svc, paths[1]) == [0, 1, 2]
    assert "Invoices" not in (_window(svc, paths[1]) or "")
    assert _window(svc, other[0]).strip() == "Invoices are sorted, the glassblowing quote is in."
    svc.close()


def test_editing_deleting_and_moving_a_turn_rewrites_the_windows_around_it(empty_vault):
    svc = make_service(empty_vault)
    paths = _save(svc)
    # the person rewrites turn 2 in Obsidian
    note = empty_vault / paths[2]
    note.write_text(note.read_text().replace("a blue vase", "a green goblet"))
    svc.sync()
    assert "green goblet" in _window(svc, paths[0]) and "blue vase" not in _window(svc, paths[0])
    assert "green goblet" in _window(svc, paths[4])
    assert "green goblet" not in _window(svc, paths[5])  # three turns away
    # turn 1 is deleted: the windows that held it close up over the gap
    (empty_vault / paths[1]).unlink()
    svc.sync()
    assert _holds(svc, paths[0]) == [0, 3]  # 0, then the next two turns still said
    assert TURNS[3] in _window(svc, paths[0]) and "Murano" not in _window(svc, paths[0])
    # turn 5 is re-dated (its frontmatter edited) to the minute before the first turn
    last = empty_vault / paths[5]
    last.write_text(last.read_text().replace("2023-05-08T10:05:00", "2023-05-08T09:59:00"))
    svc.sync()
    assert TURNS[5] in _window(svc, paths[0]) and TURNS[5] not in _window(svc, paths[4])
    assert_index_matches_rebuild(svc)
    svc.close()


def test_an_index_made_before_the_windows_gets_them_when_opened(empty_vault):
    svc = make_service(empty_vault)
    paths = _save(svc)
    index = svc.store.path
    svc.close()
    db = sqlite3.connect(index)
    db.execute("DROP TABLE windows")  # as an index made before the table has none
    db.execute("DELETE FROM meta WHERE key = 'windows_version'")
    db.commit()
    db.close()
    svc = make_service(empty_vault)
    assert _holds(svc, paths[2]) == [0, 1, 2, 3, 4]
    assert_index_matches_rebuild(svc)
    svc.close()


# -- search -------------------------------------------------------------------------------

ANSWER = "Yes! And I came home with a blue vase."
DISTRACTORS = [
    "The glassblowing museum on Murano is closed on Mondays.",
    "Murano glassblowing museum tickets cost twelve euros.",
    "A museum of glassblowing tools opened in Murano.",
]
QUERY = "What did Ann buy at the glassblowing museum on Murano?"


def _ranked(svc, query=QUERY):
    return [r["path"] for r in svc.search(query, blend_review=False)["results"]]


def test_a_question_spread_over_an_exchange_finds_the_turn_that_answers_it(empty_vault, monkeypatch):
    svc = make_service(empty_vault)
    # memories that each hold more of the question's words than the answer does
    distractors = [svc.save(text)["note"]["path"] for text in DISTRACTORS]
    paths = _save(svc)
    answer = paths[TURNS.index(ANSWER)]
    found = _ranked(svc)
    # the answer holds none of the question's words; its window holds them all
    assert found.index(answer) < 3 and all(found.index(answer) < found.index(d) for d in distractors), found
    monkeypatch.setattr(hybrid, "WINDOW_WEIGHT", 0.0)  # the ranking without windows
    found = _ranked(svc)
    assert all(found.index(answer) > found.index(d) for d in distractors), found
    svc.close()


def test_memories_outside_any_conversation_rank_as_without_windows(empty_vault, monkeypatch):
    svc = make_service(empty_vault)
    for text in DISTRACTORS:
        svc.save(text)
    with_windows = svc.search(QUERY, blend_review=False)["results"]
    monkeypatch.setattr(hybrid, "WINDOW_WEIGHT", 0.0)
    assert svc.search(QUERY, blend_review=False)["results"] == with_windows
    svc.close()


def test_a_window_match_keeps_to_the_search_scope(empty_vault):
    svc = make_service(empty_vault)
    paths = _save(svc)
    answer = paths[TURNS.index(ANSWER)]
    assert answer in _ranked(svc)
    assert all(r["kind"] == "note" for r in svc.search(QUERY, scope="notes")["results"])
    assert answer not in [r["path"] for r in svc.search(QUERY, scope="notes")["results"]]
    svc.close()


def test_window_word_lookups_are_kept_for_one_index_version(empty_vault, monkeypatch):
    """Searches keep what they read of the windows (how many hold a word, and which) until
    the index changes, here or in another process; the scores are those of a fresh read."""
    from vault_sync.search import fts

    svc = make_service(empty_vault)
    paths = _save(svc)
    filters = fts.make_filters(svc.engine, "all")
    queries = ["glassblowing vase train", "cello lessons sister Tuesday", "Murano museum morning vase"]
    fresh = {}
    for q in queries:
        svc.store.window_lookups = windows.Lookups()
        fresh[q] = fts.window_strengths(svc.store, q, filters)
    for q in queries:  # one kept set of lookups: the same scores
        assert fts.window_strengths(svc.store, q, filters) == fresh[q]
    known = svc.store.window_lookups.at(svc.store.write_signature())
    assert known.dfs["glassblowing"] == 3 and len(known.sets["glassblowing"]) == 3  # the windows of turns 0, 1, 2
    assert known.entries == sum(len(rows) for rows in known.sets.values())

    def no_read(*_args):
        raise AssertionError("read again at the same index version")

    monkeypatch.setattr(windows, "doc_frequency", no_read)
    monkeypatch.setattr(windows, "holding", no_read)
    assert fts.window_strengths(svc.store, queries[0], filters) == fresh[queries[0]]
    monkeypatch.undo()

    # past its bound on memory it starts afresh, even at the same version
    monkeypatch.setattr(windows.Lookups, "MAX_ENTRIES", known.entries - 1)
    assert svc.store.window_lookups.at(svc.store.write_signature()) is not known
    monkeypatch.undo()

    def kept_and_fresh(q):
        kept = fts.window_strengths(svc.store, q, filters)
        keep, svc.store.window_lookups = svc.store.window_lookups, windows.Lookups()
        try:
            return kept, fts.window_strengths(svc.store, q, filters)
        finally:
            svc.store.window_lookups = keep

    # a new turn here: the next search reads again, so the known words count it too
    later = _save(svc, ["Back at the glassblowing furnace with a kiln"], chat="studio")[0]
    kept, fresh_now = kept_and_fresh("glassblowing vase train")
    assert kept == fresh_now and svc.store.note(later)["rowid"] in kept
    # a turn saved by another process on the same index file: the same
    other = make_service(empty_vault, sync=False)
    elsewhere = _save(other, ["The kiln at the glassblowing studio cracked"], chat="studio2")[0]
    other.close()
    kept, fresh_now = kept_and_fresh("glassblowing vase train")
    assert kept == fresh_now and svc.store.note(elsewhere)["rowid"] in kept
    assert svc.store.note(paths[0])["rowid"] in kept
    svc.close()
