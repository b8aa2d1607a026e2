"""Decay scoring's pure formulas: the three models, the score, review priority, cross-domain
use, the score rule's decision and label.

score = use_count^beta * f(now - last_used) * strength, where f is the chosen model's decay
factor: f(0) = 1, f(H) = 0.5 for the half-life H.

These know nothing of pinned, superseded or kinds: ageing.py combines them into a memory's
score, state, decision, review priority and due dates, and is the only module that may
(tests/project/test_architecture.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Literal

if TYPE_CHECKING:
    from .settings import Settings

DAY = 86400.0
HOUR = 3600.0

Decision = Literal["keep", "promote", "forget"]


@dataclass(frozen=True)
class ScoringParams:
    model: str = "power_law"
    half_life_s: float = 3 * DAY
    beta: float = 0.6
    pl_alpha: float = 1.1
    tc_weight_fast: float = 0.7
    tc_fast_half_life_s: float = 12 * HOUR
    tc_slow_half_life_s: float = 7 * DAY
    forget_threshold: float = 0.05
    promote_threshold: float = 0.65
    promote_min_uses: int = 2
    promote_use_count: int = 5
    promote_window_s: float = 14 * DAY
    danger_zone_min: float = 0.15
    danger_zone_max: float = 0.35
    cross_domain_threshold: float = 0.3

    @classmethod
    def from_settings(cls, s: "Settings") -> "ScoringParams":
        return cls(
            model=s.decay_model,
            half_life_s=s.half_life_days * DAY,
            beta=s.beta,
            pl_alpha=s.pl_alpha,
            tc_weight_fast=s.tc_weight_fast,
            tc_fast_half_life_s=s.tc_fast_half_life_hours * HOUR,
            tc_slow_half_life_s=s.tc_slow_half_life_days * DAY,
            forget_threshold=s.forget_threshold,
            promote_threshold=s.promote_threshold,
            promote_min_uses=s.promote_min_uses,
            promote_use_count=s.promote_use_count,
            promote_window_s=s.promote_window_days * DAY,
            danger_zone_min=s.danger_zone_min,
            danger_zone_max=s.danger_zone_max,
            cross_domain_threshold=s.cross_domain_threshold,
        )

    def public(self) -> dict[str, Any]:
        """The parameters a client needs to draw decay curves (bridge `scoring`)."""
        return {
            "decay_model": self.model,
            "half_life_days": self.half_life_s / DAY,
            "pl_alpha": self.pl_alpha,
            "tc_weight_fast": self.tc_weight_fast,
            "tc_fast_half_life_hours": self.tc_fast_half_life_s / HOUR,
            "tc_slow_half_life_days": self.tc_slow_half_life_s / DAY,
            "beta": self.beta,
            "forget_threshold": self.forget_threshold,
            "promote_threshold": self.promote_threshold,
            "promote_min_uses": self.promote_min_uses,
            "danger_zone_min": self.danger_zone_min,
            "danger_zone_max": self.danger_zone_max,
        }


def decay_factor(p: ScoringParams, dt_seconds: float) -> float:
    dt = max(0.0, dt_seconds)  # a last_used in the future (clock skew) counts as now
    if p.model == "exponential":
        return math.exp(-math.log(2) / p.half_life_s * dt)
    if p.model == "power_law":
        t0 = p.half_life_s / (2 ** (1 / p.pl_alpha) - 1)
        return float((1 + dt / t0) ** (-p.pl_alpha))
    if p.model == "two_component":
        lf = math.log(2) / p.tc_fast_half_life_s
        ls = math.log(2) / p.tc_slow_half_life_s
        w = p.tc_weight_fast
        return w * math.exp(-lf * dt) + (1 - w) * math.exp(-ls * dt)
    raise ValueError(f"unknown decay model {p.model!r}")


def score(p: ScoringParams, use_count: int, dt_seconds: float, strength: float) -> float:
    return float((max(use_count, 0) ** p.beta) * decay_factor(p, dt_seconds) * strength)


def review_priority(p: ScoringParams, value: float) -> float:
    """An inverted parabola over the danger zone, peaking at its middle."""
    lo, hi = p.danger_zone_min, p.danger_zone_max
    if value < lo or value > hi:
        return 0.0
    x = (value - lo) / (hi - lo)
    return max(0.0, 1.0 - 4.0 * (x - 0.5) ** 2)


def in_danger_zone(p: ScoringParams, value: float) -> bool:
    return p.danger_zone_min <= value <= p.danger_zone_max


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = {t.lower() for t in a}, {t.lower() for t in b}
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def is_cross_domain(p: ScoringParams, memory_tags: Iterable[str], context_tags: Iterable[str]) -> bool:
    """Use in a context whose tags barely overlap the memory's own: Jaccard below the threshold."""
    context = list(context_tags)
    if not context:
        return False
    return jaccard(memory_tags, context) < p.cross_domain_threshold


def decide(p: ScoringParams, value: float, use_count: int, age_seconds: float | None) -> tuple[Decision, str]:
    """keep / promote / forget with the reason.

    Promote when the score reaches the threshold with at least one reinforcement (a fresh
    note scores its strength, so a bare score rule would promote everything just saved), or
    on enough uses soon after creation; forget below the forget threshold."""
    if value >= p.promote_threshold and use_count >= p.promote_min_uses:
        return "promote", f"score {value:.3f} >= {p.promote_threshold} with {use_count} uses"
    if use_count >= p.promote_use_count and age_seconds is not None and age_seconds <= p.promote_window_s:
        days = p.promote_window_s / DAY
        return "promote", f"{use_count} uses within {days:g} days of creation"
    if value < p.forget_threshold:
        return "forget", f"score {value:.4f} < forget threshold {p.forget_threshold}"
    return "keep", f"score {value:.3f}"


def state_of(p: ScoringParams, value: float, decision: Decision) -> str:
    """The label people see: fresh / fading / danger / forget / promote_candidate."""
    if decision == "promote":
        return "promote_candidate"
    if decision == "forget":
        return "forget"
    if in_danger_zone(p, value):
        return "danger"
    return "fresh" if value >= 0.5 else "fading"
