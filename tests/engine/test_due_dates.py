"""review_on / archive_on against the decay models solved by brute force, day by day."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from vault_sync.ageing import Facts, memory_score
from vault_sync.due import due_dates, seconds_until
from vault_sync.scoring import DAY, ScoringParams

MODELS = ["exponential", "power_law", "two_component"]


def brute_force_day(p: ScoringParams, n: int, s: float, last_used: datetime, threshold: float):
    """The first UTC day at whose end the score is at or below `threshold` (None: not in 10 years)."""
    if memory_score(p, Facts(n, s, last_used), last_used) <= threshold:
        return last_used.date()
    day = last_used.date()
    for _ in range(3650):
        end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=timezone.utc)
        if memory_score(p, Facts(n, s, last_used), end) <= threshold:
            return day
        day += timedelta(days=1)
    return None


@settings(max_examples=300, deadline=None)
@given(
    model=st.sampled_from(MODELS),
    n=st.integers(1, 40),
    s=st.floats(0.05, 2.0),
    minutes=st.integers(0, 60 * 24 * 365),
    half_life=st.floats(0.5, 30),
)
def test_due_dates_match_a_day_by_day_search(model, n, s, minutes, half_life):
    p = ScoringParams(model=model, half_life_s=half_life * DAY)
    last = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=minutes)
    got = due_dates(p, n, s, last)
    for key, threshold in (("review_on", p.danger_zone_max), ("archive_on", p.forget_threshold)):
        want = brute_force_day(p, n, s, last, threshold)
        if want is not None:
            assert got[key] == want, (key, model, n, s, last)


def test_crossing_is_the_instant_the_score_reaches_the_threshold():
    for model in MODELS:
        p = ScoringParams(model=model)
        t = seconds_until(p, 3, 1.2, p.forget_threshold)
        last = datetime(2026, 3, 1, tzinfo=timezone.utc)
        at = last + timedelta(seconds=t)
        assert abs(memory_score(p, Facts(3, 1.2, last), at) - p.forget_threshold) < 1e-9
        assert memory_score(p, Facts(3, 1.2, last), at - timedelta(seconds=1)) > p.forget_threshold


def test_already_below_and_never():
    p = ScoringParams()
    assert seconds_until(p, 1, 0.04, p.forget_threshold) == 0.0  # starts below: due at once
    assert seconds_until(p, 1, 1.0, 0.0) is None  # a score never reaches zero
    last = datetime(2026, 3, 1, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 04:30 UTC the next day
    assert due_dates(p, 1, 0.01, last)["archive_on"].isoformat() == "2026-03-02"
