"""The ageing policy (vault_sync/ageing.py) on its own: one memory's facts and a fixed clock in,
its score, decision, state, review priority and due dates out."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from conftest import FIXED_NOW

from vault_sync.ageing import Facts, age
from vault_sync.due import due_dates
from vault_sync.scoring import DAY, ScoringParams, decay_factor

P = ScoringParams()


def _facts(days_unused: float, uses: int = 1, strength: float = 1.0, created_days: float | None = None, **kw) -> Facts:
    created = FIXED_NOW - timedelta(days=created_days if created_days is not None else days_unused)
    return Facts(uses, strength, FIXED_NOW - timedelta(days=days_unused), created=created, **kw)


@pytest.mark.parametrize("model", ["power_law", "exponential", "two_component"])
@pytest.mark.parametrize("days", [0.0, 1.0, 9.0, 40.0])
def test_the_score_is_the_formula_and_the_dates_the_crossings(model, days):
    p = replace(P, model=model)
    f = _facts(days, uses=3, strength=1.2)
    a = age(p, f, FIXED_NOW)
    assert a.score == pytest.approx(3**p.beta * decay_factor(p, days * DAY) * 1.2, rel=1e-12)
    assert a.due() == due_dates(p, 3, 1.2, f.last_used)
    assert a.in_review == (p.danger_zone_min <= a.score <= p.danger_zone_max)
    assert (a.review_priority > 0) == (p.danger_zone_min < a.score < p.danger_zone_max)


def test_a_pinned_memory_keeps_its_last_use_score_and_is_never_due_reviewed_or_archived():
    plain, pinned = _facts(120), _facts(120, pinned=True)
    a, b = age(P, plain, FIXED_NOW), age(P, pinned, FIXED_NOW)
    assert a.decision == "forget" and a.state == "forget" and a.review_on is not None
    assert b.score == age(P, pinned, pinned.last_used).score == age(P, plain, plain.last_used).score
    assert b.score == age(P, pinned, FIXED_NOW + timedelta(days=365)).score  # a year later: the same
    assert (b.decision, b.state, b.review_priority, b.in_review) == ("keep", "pinned", 0.0, False)
    assert b.due() == {"review_on": None, "archive_on": None} and b.enters_review_at is None
    danger = next(d for d in range(1, 60) if age(P, _facts(d), FIXED_NOW).in_review)
    assert not age(P, _facts(danger, pinned=True), FIXED_NOW).in_review


def test_a_superseded_memory_is_forgotten_while_its_status_says_so_and_never_promoted():
    old = _facts(0.1, uses=6, created_days=1)
    assert age(P, old, FIXED_NOW).decision == "promote"
    replaced = age(P, old._replace(superseded=True, status="superseded"), FIXED_NOW)
    assert (replaced.decision, replaced.reason) == ("forget", "superseded by a newer memory")
    restored = age(P, old._replace(superseded=True), FIXED_NOW)  # status active again: fades by its score
    assert restored.decision == "keep"
    faded = age(P, _facts(120)._replace(superseded=True), FIXED_NOW)
    assert faded.decision == "forget" and not faded.in_review
    danger = next(d for d in range(1, 60) if age(P, _facts(d), FIXED_NOW).in_review)
    assert not age(P, _facts(danger)._replace(superseded=True), FIXED_NOW).in_review


def test_kinds_and_statuses_name_the_state_and_only_stm_decides():
    note = age(P, _facts(3)._replace(kind="note"), FIXED_NOW)
    assert (note.score, note.state, note.decision, note.shown_priority) == (None, "note", "keep", 0.0)
    ltm = age(P, _facts(120)._replace(kind="ltm", status="promoted"), FIXED_NOW)
    assert (ltm.state, ltm.decision, ltm.enters_review_at) == ("promoted", "keep", None)
    danger = next(d for d in range(1, 60) if age(P, _facts(d), FIXED_NOW).in_review)
    ltm_danger = age(P, _facts(danger)._replace(kind="ltm"), FIXED_NOW)
    assert ltm_danger.review_priority > 0 and ltm_danger.shown_priority == 0.0  # written, never shown or queued
    archived = age(P, _facts(3)._replace(kind="archive", status="archived"), FIXED_NOW)
    assert archived.state == "archived" and archived.due() == {"review_on": None, "archive_on": None}
    assert age(P, _facts(3), FIXED_NOW).review_on is not None  # the same memory in STM has them


def test_it_enters_review_when_its_score_reaches_the_danger_zone():
    f = _facts(0.5)
    at = age(P, f, FIXED_NOW).enters_review_at
    assert at is not None and at == age(P, f, FIXED_NOW).review_at
    assert age(P, f, at - timedelta(seconds=1)).score > P.danger_zone_max >= age(P, f, at).score - 1e-12
    assert age(P, f, at + timedelta(seconds=1)).enters_review_at is None  # already there
