"""When an unused memory will cross a threshold: the instant its score falls to `threshold`.

score(t) = n^beta * f(t - last_used) * strength is strictly decreasing in t, so each
threshold is crossed once. Exponential and power law invert in closed form; the
two-component sum has no closed inverse and is solved by bisection, which the decay's
monotony makes exact to well under a second.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta, timezone

from .scoring import ScoringParams, decay_factor

_HORIZON_S = 1000 * 365 * 86400.0  # past this an instant is "never" for a person


def seconds_until(p: ScoringParams, use_count: int, strength: float, threshold: float) -> float | None:
    """Seconds after last use at which the score first drops below `threshold`; 0 when it
    already starts there, None when it never does (within a thousand years)."""
    top = (max(use_count, 0) ** p.beta) * strength
    if top <= threshold:
        return 0.0
    if threshold <= 0:
        return None
    x = threshold / top  # the decay factor at the crossing, in (0, 1)
    t: float | None
    if p.model == "exponential":
        t = -math.log(x) * p.half_life_s / math.log(2)
    elif p.model == "power_law":
        t0 = p.half_life_s / (2 ** (1 / p.pl_alpha) - 1)
        t = t0 * (x ** (-1 / p.pl_alpha) - 1)
    else:
        t = _bisect(p, x)
    return None if t is None or t > _HORIZON_S else t


def _bisect(p: ScoringParams, x: float) -> float | None:
    lo, hi = 0.0, 86400.0
    while decay_factor(p, hi) > x:
        hi *= 2
        if hi > _HORIZON_S:
            return None
    for _ in range(80):  # hi - lo shrinks below a microsecond long before this
        mid = (lo + hi) / 2
        if decay_factor(p, mid) > x:
            lo = mid
        else:
            hi = mid
    return hi


def crossing_at(
    p: ScoringParams, use_count: int, strength: float, last_used: datetime, threshold: float
) -> datetime | None:
    t = seconds_until(p, use_count, strength, threshold)
    return None if t is None else last_used + timedelta(seconds=t)


def due_dates(p: ScoringParams, use_count: int, strength: float, last_used: datetime) -> dict[str, date | None]:
    """`review_on`: the UTC day the memory enters the danger zone if unused; `archive_on`:
    the UTC day its score falls below the forget threshold. None where it never will."""
    out: dict[str, date | None] = {}
    for key, threshold in (("review_on", p.danger_zone_max), ("archive_on", p.forget_threshold)):
        at = crossing_at(p, use_count, strength, last_used, threshold)
        out[key] = None if at is None else at.astimezone(timezone.utc).date()
    return out
