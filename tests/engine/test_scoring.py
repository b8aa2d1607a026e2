"""The scoring test vectors (exponential model, beta 0.6, half-life 3 days), for every model."""

import math

import pytest

from vault_sync.scoring import (
    DAY,
    HOUR,
    ScoringParams,
    decay_factor,
    decide,
    is_cross_domain,
    jaccard,
    review_priority,
    score,
)

EXP = ScoringParams(model="exponential")
PL = ScoringParams(model="power_law")
TC = ScoringParams(model="two_component")


@pytest.mark.parametrize(
    "dt, exp, pl, tc",
    [
        (12 * HOUR, 0.890944, 0.860533, 0.635725),
        (1 * DAY, 0.793781, 0.754018, 0.446923),
        (3 * DAY, 0.500153, 0.500000, 0.233826),
        (7 * DAY, 0.198567, 0.293447, 0.149959),
        (30 * DAY, 0.000980, 0.081413, 0.015345),
    ],
)
def test_decay_factor_table(dt, exp, pl, tc):
    # the exponential column was computed with lambda 2.673e-6 (differs from ln2/H in the 4th decimal)
    assert decay_factor(EXP, dt) == pytest.approx(exp, abs=1e-3)
    assert decay_factor(PL, dt) == pytest.approx(pl, abs=1e-5)
    assert decay_factor(TC, dt) == pytest.approx(tc, abs=1e-3)
    # with the table's own (rounded) lambdas the formula matches to the printed digits
    table_tc = ScoringParams(
        model="two_component", tc_fast_half_life_s=math.log(2) / 1.603e-5, tc_slow_half_life_s=math.log(2) / 1.147e-6
    )
    assert decay_factor(table_tc, dt) == pytest.approx(tc, abs=2e-6)


def test_every_model_is_one_at_zero_and_half_at_half_life():
    for p in (EXP, PL):
        assert decay_factor(p, 0) == 1.0
        assert decay_factor(p, 3 * DAY) == pytest.approx(0.5, abs=1e-9)
    assert decay_factor(TC, 0) == pytest.approx(1.0)


def test_configured_model_is_the_model_that_runs():
    values = {decay_factor(p, 7 * DAY) for p in (EXP, PL, TC)}
    assert len(values) == 3


@pytest.mark.parametrize(
    "n, dt, s, expected, decision",
    [
        (1, 6 * HOUR, 1.0, 0.944, "keep"),  # A
        (6, 2 * DAY, 1.0, 1.846, "promote"),  # B
        (3, 5 * DAY, 1.5, 0.91, "promote"),  # C
        (1, 21 * DAY, 1.0, 0.0078, "forget"),  # D
        (3, 1 * HOUR, 2.0, 3.82, "promote"),  # scenario 1
    ],
)
def test_worked_examples_score_and_decision(n, dt, s, expected, decision):
    value = score(EXP, n, dt, s)
    # each vector is checked to the digits it is given with (3.82 is 3.829 truncated)
    digits = len(str(expected).split(".")[1])
    assert value == pytest.approx(expected, abs=10**-digits)
    assert decide(EXP, value, n, age_seconds=dt)[0] == decision


def test_fresh_note_scores_its_strength_and_is_not_promoted():
    for p in (EXP, PL, TC):
        value = score(p, 1, 0, 1.0)
        assert value == pytest.approx(1.0)
        assert decide(p, value, 1, 0)[0] == "keep"


def test_usage_rule_promotes_within_window_only():
    assert decide(PL, 0.5, 5, 10 * DAY)[0] == "promote"
    assert decide(PL, 0.5, 5, 15 * DAY)[0] == "keep"


@pytest.mark.parametrize(
    "value, prio", [(0.25015, 1.0), (0.31514, 0.57567), (0.17691, 0.46581), (0.1, 0.0), (0.4, 0.0)]
)
def test_review_priority_peaks_mid_danger_zone_and_is_zero_outside(value, prio):
    assert review_priority(PL, value) == pytest.approx(prio, abs=1e-4)


def test_cross_domain_is_tag_jaccard_below_the_threshold():
    assert jaccard(["a", "b"], ["b", "c"]) == pytest.approx(1 / 3)
    assert is_cross_domain(PL, ["security", "jwt"], ["cooking"])
    assert not is_cross_domain(PL, ["security", "jwt"], ["security", "jwt", "auth"])
    assert not is_cross_domain(PL, ["security"], [])


def test_negative_dt_is_now():
    assert decay_factor(PL, -100) == 1.0
    assert not math.isnan(score(PL, 0, 0, 1.0))
