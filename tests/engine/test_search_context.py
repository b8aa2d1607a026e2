"""Conversation context in search (vault_sync/search/context.py): a turn said in a conversation
is scored with the turns said just before and after it. A small conversation written here."""

from __future__ import annotations

from conftest import assert_index_matches_rebuild, make_service

from vault_sync.index import queries
from vault_sync.search import context, hybrid

QUESTION = "Did you finally get to the glassblowing museum on Murano?"
REPLY = "Yes, I went there yesterday and came home with a blue vase."
ASIDE = "Lovely! My sister keeps asking about our cello lessons."
OTHER_CHAT = "Yes, I went there yesterday and sorted out the invoices."  # same minute, other chat
LATER = "Yes, we went there again, the gondolas were packed."  # same chat, hours later


def _save_trip(svc, with_conversation: bool = True) -> dict[str, str]:
    def item(text, chat, when):
        return {"text": text, "conversation": chat, "said_at": when} if with_conversation else {"text": text}

    answer = svc.save_many(
        [
            item(QUESTION, "trip", "2023-05-08T10:00:00Z"),
            item(REPLY, "trip", "2023-05-08T10:01:00Z"),
            item(ASIDE, "trip", "2023-05-08T10:02:00Z"),
            item(OTHER_CHAT, "work", "2023-05-08T10:01:00Z"),
            item(LATER, "trip", "2023-05-08T14:00:00Z"),
        ]
    )
    return {text: r["note"]["path"] for text, r in zip((QUESTION, REPLY, ASIDE, OTHER_CHAT, LATER), answer["results"])}


def test_the_reply_is_found_through_the_turn_before_it(empty_vault):
    svc = make_service(empty_vault)
    paths = _save_trip(svc)
    found = [r["path"] for r in svc.search("glassblowing museum Murano")["results"]]
    # the reply shares no word with the query: only its neighbour does
    assert found[:2] == [paths[QUESTION], paths[REPLY]]
    assert found.index(paths[REPLY]) < found.index(paths[ASIDE])  # a minute closer to the question
    # neither a turn of another conversation said at the same moment, nor one said hours later
    assert paths[OTHER_CHAT] not in found and paths[LATER] not in found
    svc.close()


def test_without_a_conversation_the_reply_is_not_found(tmp_path):
    # the same memories saved without conversation keys: what search did before, and would do
    # again if the rescoring were taken out
    vault = tmp_path / "plain"
    (vault / "STM").mkdir(parents=True)
    svc = make_service(vault)
    paths = _save_trip(svc, with_conversation=False)
    found = [r["path"] for r in svc.search("glassblowing museum Murano")["results"]]
    assert found == [paths[QUESTION]]
    svc.close()


def test_context_weights_zero_is_the_plain_ranking(empty_vault, monkeypatch):
    svc = make_service(empty_vault)
    paths = _save_trip(svc)
    monkeypatch.setattr(context, "CONTEXT_WEIGHT", 0.0)
    monkeypatch.setattr(hybrid, "WINDOW_WEIGHT", 0.0)
    assert [r["path"] for r in svc.search("glassblowing museum Murano")["results"]] == [paths[QUESTION]]
    svc.close()


def test_a_vault_without_conversations_ranks_exactly_as_before(service, monkeypatch):
    queries_ = ["postgres staging", "espresso", "project deadline", "meeting notes review"]
    with_context = [service.search(q, blend_review=False)["results"] for q in queries_]
    monkeypatch.setattr(context, "CONTEXT_WEIGHT", 0.0)
    monkeypatch.setattr(hybrid, "WINDOW_WEIGHT", 0.0)
    without = [service.search(q, blend_review=False)["results"] for q in queries_]
    assert with_context == without
    assert any(with_context)  # the queries do find something in the sample vault


def test_the_index_keeps_conversation_and_said_at_in_utc(empty_vault):
    svc = make_service(empty_vault)
    answer = svc.save_many(
        [
            {
                "text": "Ann adopted a greyhound called Biscuit",
                "conversation": "c1",
                "said_at": "2023-05-08T15:56:00+02:00",
            },
            {"text": "Bob is learning the cello since March", "conversation": "c1", "said_at": "2023-05-08T13:58:30Z"},
            {"text": "A memory said in no conversation at all"},
        ]
    )
    a, b, c = (svc.store.note(r["note"]["path"]) for r in answer["results"])
    assert (a["conversation"], a["said_at"]) == ("c1", "2023-05-08T13:56:00Z")
    assert (c["conversation"], c["said_at"]) == (None, None)
    near = queries.conversation_neighbours(svc.store, [a["rowid"], b["rowid"], c["rowid"]], 300)
    # (neighbour, seconds from it to this note): positive when the neighbour was said first
    assert near == {a["rowid"]: [(b["rowid"], -150.0)], b["rowid"]: [(a["rowid"], 150.0)]}
    assert queries.conversation_neighbours(svc.store, [a["rowid"]], 100) == {}
    # derived from the files like every column: a rebuild gives the same rows
    assert_index_matches_rebuild(svc)
    svc.sync(rebuild=True)
    again = svc.store.note(answer["results"][0]["note"]["path"])
    assert (again["conversation"], again["said_at"]) == ("c1", "2023-05-08T13:56:00Z")
    svc.close()


def test_a_memory_that_opens_with_the_name_asked_about_ranks_first(empty_vault, monkeypatch):
    from vault_sync.search import hybrid

    svc = make_service(empty_vault)
    saved = svc.save_many(
        [
            "Melanie painted a lake sunrise last summer.",
            "Caroline and Melanie painted a sunrise; Melanie painted the lake.",
        ],
        conversation="art club",
    )["results"]
    mel, both = (r["note"]["path"] for r in saved)

    def top(query):
        return [r["path"] for r in svc.search(query, blend_review=False)["results"]]

    # full text alone prefers the note that says "Melanie" and "painted" twice; the question
    # is about what Melanie did, which the first note opens with
    assert top("What did Melanie paint?") == [mel, both]
    assert top("What did Caroline paint?") == [both, mel]
    assert hybrid.query_names("When did Melanie and I visit Paris?") == {"melanie", "paris"}
    monkeypatch.setattr(hybrid, "SUBJECT_BONUS", 0.0)
    assert top("What did Melanie paint?") == [both, mel]
    monkeypatch.undo()
    # outside a conversation a first word is not a speaker: notes rank on their words alone
    plain = svc.save_many(
        [
            "Priya moved the billing service to Postgres.",
            "Billing moved to Postgres, Priya said; Priya checked billing.",
        ]
    )["results"]
    assert top("Where did Priya move billing?")[:2] == [plain[1]["note"]["path"], plain[0]["note"]["path"]]
    svc.close()
