"""The relevance blend of hybrid search (vault_sync.search.hybrid.relevance)."""

from __future__ import annotations

import pytest

from vault_sync.search import hybrid


def test_a_turn_holding_the_question_words_beats_one_merely_on_topic():
    # "When did Caroline go to the LGBTQ support group?" A turn that names the group
    # ("I went to a LGBTQ support group yesterday") matches most of the words but is a
    # plain statement (MiniLM strength 0.4); a turn about the same topic in other words
    # ("the community there has been so welcoming") is closer in meaning (0.8) and shares
    # only the name (word strength 0.35). With 0.6/0.4 the topical turn won (0.62 vs 0.56).
    words_turn = hybrid.relevance(0.4, 0.8)
    topic_turn = hybrid.relevance(0.8, 0.35)
    assert words_turn > topic_turn
    assert words_turn == pytest.approx(0.5 * 0.4 + 0.5 * 0.8 + 0.05 * 0.4)


def test_agreement_bonus_only_when_both_lists_found_the_note():
    assert hybrid.relevance(0.6, 0.0, both=False) == pytest.approx(0.3)
    assert hybrid.relevance(0.6, 0.5, both=True) - hybrid.relevance(0.6, 0.5, both=False) == pytest.approx(0.025)
