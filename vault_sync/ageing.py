"""How a memory ages: the one policy from a memory's facts to its score, decision, state,
review priority and due dates (docs/scoring.md). Every caller asks `age` (or `of_row`);
scoring.py and due.py hold the pure formulas it combines, and no other module imports them
(tests/project/test_architecture.py). A change to how memories age goes here.

The rules, in one place:
- score: use_count^beta * f(now - last use) * strength. A pinned memory's stays the one of
  its last use (time does not count), as does a memory with no date to count from.
- decision (STM only; every other kind keeps): promote or forget by the score rule
  (scoring.decide). A pinned memory is kept: promoted only when asked, never archived. A
  superseded one is never promoted, and is forgotten whatever its score while its status
  says superseded (a restored one, status active, fades by its score).
- state: note / promoted / archived by kind and status, then pinned, then the score rule's
  label (fresh, fading, danger, forget, promote_candidate).
- review priority: the parabola over the danger zone; none for a pinned memory. A memory is
  in the review queue when it is in STM, current, not pinned and in the danger zone.
- due dates: review_on / archive_on, the UTC days an unused memory's score falls to the
  danger zone's top and below the forget threshold; none for a pinned memory, nor for one
  leaving the lifecycle for the archive.
- a graded review moves the last use to where the score is a bounded target
  (`reviewed_last_used`; ops/review.py writes it).

The clock is a parameter: the same facts and `now` always give the same answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Generic, NamedTuple, TypeVar

from .dates import parse_datetime
from .due import seconds_until
from .scoring import Decision, ScoringParams, decay_factor, decide, in_danger_zone, review_priority, score, state_of


class Facts(NamedTuple):
    """What ageing is computed from. `last_used` is where the decay counts from: the last
    use, else the creation (None: no date at all, scored as if just used). Immutable, and a
    tuple because the sweep builds one per note (a frozen dataclass costs three times as much)."""

    use_count: int
    strength: float
    last_used: datetime | None
    created: datetime | None = None  # the promotion window counts from it
    kind: str = "stm"  # stm / ltm / archive / note: decisions and states only
    status: str = "active"
    pinned: bool = False
    superseded: bool = False  # a newer memory replaces it (lookups.not_current); callers that know pass it

    @classmethod
    def of_row(cls, row: Any, superseded: bool = False) -> Facts:
        """The facts of an index row (notes table)."""
        created = parse_datetime(row["created"])
        return cls(
            use_count=row["use_count"] or 0,
            strength=row["strength"] if row["strength"] is not None else 1.0,
            last_used=parse_datetime(row["last_used"]) or created,
            created=created,
            kind=row["kind"],
            status=row["status"] or "active",
            pinned=bool(row["pinned"]),
            superseded=superseded,
        )

    @classmethod
    def of_fields(cls, fields: Any, now: datetime, kind: str = "stm") -> Facts:
        """The facts of a parsed note's fields (note.Fields); no date counts as a use now."""
        return cls(
            use_count=fields.use_count,
            strength=fields.strength,
            last_used=fields.last_used or fields.created or now,
            created=fields.created,
            kind=kind,
            status=fields.status or "active",
            pinned=bool(fields.pinned),
        )


T = TypeVar("T")


class _once(Generic[T]):
    """A property computed on first read and kept in the instance (functools.cached_property
    takes a lock per read in Python 3.11, which the review queue and GC pay for every memory)."""

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn, self.name = fn, fn.__name__

    def __get__(self, obj: Any, owner: Any = None) -> T:
        value = self.fn(obj)
        obj.__dict__[self.name] = value  # read before this descriptor from now on
        return value


@dataclass(eq=False)
class Ageing:
    """One memory's ageing at `now`, read-only. The score and priority are computed at once;
    the rest on first read (the sweep reads only those two for most notes, and a due date may
    cost a search). Not a frozen dataclass: the review queue and GC build one per memory, and
    a frozen one's construction costs more than the score."""

    params: ScoringParams
    facts: Facts
    now: datetime
    score: float | None  # None: a person's note, which does not age
    review_priority: float  # the one written in the note (any kind); 0 for a pinned memory

    @_once
    def _decided(self) -> tuple[Decision, str]:
        f = self.facts
        if self.score is None or f.kind != "stm":
            return "keep", ""
        if f.pinned:
            return "keep", "pinned: kept as it is"
        if f.superseded and f.status == "superseded":
            return "forget", "superseded by a newer memory"
        age = (self.now - f.created).total_seconds() if f.created else None
        decision, reason = decide(self.params, self.score, f.use_count, age)  # the score rule
        if f.superseded and decision == "promote":
            return "keep", "superseded by a newer memory: not promoted"
        return decision, reason

    @property
    def decision(self) -> Decision:
        """What the lifecycle does with it on its own: keep, promote or forget."""
        return self._decided[0]

    @property
    def reason(self) -> str:
        return self._decided[1]

    @_once
    def state(self) -> str:
        """The label people see."""
        f = self.facts
        if f.kind == "note" or self.score is None:
            return "note"
        if f.kind == "ltm" or f.status == "promoted":
            return "promoted"
        if f.kind == "archive" or f.status == "archived":
            return "archived"
        if f.pinned:
            return "pinned"  # never reviewed, archived or promoted on its own: none of those states is its
        return state_of(self.params, self.score, self.decision)

    @property
    def shown_priority(self) -> float:
        """The review priority views show: only an STM memory is ever reviewed."""
        return self.review_priority if self.facts.kind == "stm" and self.score is not None else 0.0

    @property
    def in_review(self) -> bool:
        """Whether it is in the review queue (ordered by review_priority, highest first)."""
        f = self.facts
        return (
            f.kind == "stm"
            and not f.pinned
            and not f.superseded
            and self.score is not None
            and in_danger_zone(self.params, self.score)
        )

    @_once
    def review_after_s(self) -> float | None:
        """Seconds after its last use at which an unused memory's score falls to the danger
        zone's top (0: it starts there; None: never, as for a pinned or archived memory)."""
        return None if self._dateless else seconds_until(self.params, *self._top, self.params.danger_zone_max)

    @_once
    def archive_after_s(self) -> float | None:
        """Seconds after its last use at which it falls below the forget threshold (None: never)."""
        return None if self._dateless else seconds_until(self.params, *self._top, self.params.forget_threshold)

    @property
    def _dateless(self) -> bool:
        """No due dates: a pinned memory never comes due, nor one in the archive (no sweep acts there)."""
        return self.facts.pinned or self.facts.kind == "archive"

    @property
    def _top(self) -> tuple[int, float]:
        return self.facts.use_count, self.facts.strength

    @property
    def review_at(self) -> datetime | None:
        """The instant an unused memory's score falls to the danger zone's top (None: never)."""
        return _after(self.facts.last_used, self.review_after_s)

    @property
    def archive_at(self) -> datetime | None:
        """The instant an unused memory's score falls below the forget threshold (None: never)."""
        return _after(self.facts.last_used, self.archive_after_s)

    @property
    def review_on(self) -> date | None:
        return _day(self.review_at)

    @property
    def archive_on(self) -> date | None:
        return _day(self.archive_at)

    @property
    def enters_review_at(self) -> datetime | None:
        """When a memory on its way to the review queue enters it if left unused: None when it
        is there already, below it, or never reviewed (pinned, superseded, not in STM)."""
        f = self.facts
        if f.kind != "stm" or f.pinned or f.superseded or self.score is None or f.last_used is None:
            return None
        return self.review_at if self.score > self.params.danger_zone_max else None

    def scores(self, prec: int) -> dict[str, float]:
        """decay_score and review_priority as a note carries them, at the stored precision."""
        assert self.score is not None, "a person's note carries no score"
        return {"decay_score": round(self.score, prec), "review_priority": round(self.review_priority, prec)}

    def due(self) -> dict[str, date | None]:
        """review_on / archive_on as a note carries them (None: the day never comes, so no key)."""
        return {"review_on": self.review_on, "archive_on": self.archive_on}


def _after(last: datetime | None, seconds: float | None) -> datetime | None:
    return None if last is None or seconds is None else last + timedelta(seconds=seconds)


def _day(at: datetime | None) -> date | None:
    return None if at is None else at.astimezone(timezone.utc).date()


def age(p: ScoringParams, facts: Facts, now: datetime) -> Ageing:
    """The memory's ageing at `now`: the one place its score, decision, state, review priority
    and due dates are combined."""
    if facts.kind == "note":
        return Ageing(p, facts, now, None, 0.0)
    dt = (now - facts.last_used).total_seconds() if facts.last_used and not facts.pinned else 0.0
    value = score(p, facts.use_count, dt, facts.strength)
    return Ageing(p, facts, now, value, 0.0 if facts.pinned else review_priority(p, value))


def of_row(p: ScoringParams, row: Any, now: datetime, superseded: bool = False) -> Ageing:
    """The ageing of an index row at `now`."""
    return age(p, Facts.of_row(row, superseded), now)


def score_state(p: ScoringParams, value: float, use_count: int, age_s: float | None) -> str:
    """The score rule's label for a score `value` (the quiet-vault rule compares a written
    score's with the live one's: quiet.py)."""
    decision, _ = decide(p, value, use_count, age_s)
    return state_of(p, value, decision)


def memory_score(p: ScoringParams, facts: Facts, now: datetime) -> float:
    """The score of a memory at `now` (facts of a person's note are a caller's mistake)."""
    value = age(p, facts, now).score
    if value is None:
        raise ValueError("a person's note has no score")
    return value


# -- a graded review (ops/review.py): where it moves the last use --
MAX_DT = 100 * 365 * 86400.0


def target_score(p: ScoringParams, grade: str) -> float:
    if grade == "remember":
        return (p.danger_zone_max + p.promote_threshold) / 2
    return p.danger_zone_min * 0.99


def seconds_to_reach(p: ScoringParams, peak: float, target: float) -> float:
    """The smallest whole number of seconds after a use at which the score is at most `target`
    (0 when even a use now scores no more). Bisection: every decay model falls monotonically."""
    if peak <= target:
        return 0.0
    lo, hi = 0.0, 86400.0
    while peak * decay_factor(p, hi) > target:
        if hi >= MAX_DT:
            return MAX_DT
        lo, hi = hi, hi * 2
    for _ in range(80):
        mid = (lo + hi) / 2
        if peak * decay_factor(p, mid) > target:
            lo = mid
        else:
            hi = mid
    return float(math.ceil(hi))


def reviewed_last_used(
    p: ScoringParams, grade: str, use_count: int, strength: float, last_used: datetime, now: datetime
) -> datetime:
    """The last_used a review with `grade` writes (ops/review.py's docstring: a bounded effect,
    never a promotion by itself)."""
    peak = memory_score(p, Facts(use_count, strength, now), now)  # its score were it used now
    at = now.replace(microsecond=0) - timedelta(seconds=seconds_to_reach(p, peak, target_score(p, grade)))
    return max(last_used, at) if grade == "remember" else min(last_used, at)
