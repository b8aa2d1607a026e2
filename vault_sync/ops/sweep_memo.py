"""A sweep that found nothing due remembers until when nothing will be.

The daemon sweeps every few minutes; in a quiet vault nothing has changed since the last
pass and nothing is due, yet a pass would still read every STM row from the index and score
it (about 0.1-0.2 s at 10,000 notes: the sweep rows of mnemovault bench). So a pass that wrote nothing, skipped nothing
as "recently edited", and left every note alone looks ahead: if every note would still be left
alone at a horizon (6 h, else 1 h, else 15 min), no note is due before it. Why that holds in
between: as time passes a note's live score only falls, so its state only moves one way and
its written score only leaves the refresh window, never comes back into it (quiet.left_alone
is true up to some instant and false after).

The next pass is then answered from this memory without a query, as long as the index saw
no transaction since (store.write_signature: ours or another process's), the settings and
the editor hold are the same, and the clock is between the pass and the horizon. Anything
else, and the sweep looks at every row again. The memory is held by the service's runtime
(runtime.quiet_sweep): one per service, gone with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..engine import Engine
from ..quiet import left_alone

HORIZONS = (timedelta(hours=6), timedelta(hours=1), timedelta(minutes=15))


@dataclass(frozen=True)
class Quiet:
    signature: tuple[int, int]
    key: tuple[Any, ...]
    since: datetime
    until: datetime
    scanned: int
    unchanged: int
    held: int
    invalid: list[dict[str, Any]] = field(default_factory=list)


def key_of(engine: Engine, refresh_s: float, held: str | None) -> tuple[Any, ...]:
    s = engine.settings
    return (engine.params, s.score_precision, refresh_s, s.quiet_seconds, held)


def recall(engine: Engine, key: tuple[Any, ...], now: datetime) -> Quiet | None:
    """The memory of the last quiet pass, if it still answers for `now`."""
    memo: Quiet | None = engine.runtime.quiet_sweep
    if memo is None or memo.key != key or not memo.since <= now < memo.until:
        return None
    if engine.store.write_signature() != memo.signature:
        return None
    return memo


def forget(engine: Engine) -> None:
    engine.runtime.keep_quiet_sweep(None)


def remember(
    engine: Engine,
    key: tuple[Any, ...],
    signature: tuple[int, int],
    now: datetime,
    alone: list[tuple[Any, datetime]],
    scanned: int,
    held: int,
    invalid: list[dict[str, Any]],
    refresh_s: float,
) -> None:
    """After a pass that changed nothing: how long nothing is due, if at least 15 minutes.
    `signature`: the index's, taken before the pass read its rows; `alone`: (row, last use)
    of every note the pass left alone."""
    params, prec = engine.params, engine.settings.score_precision
    pending = alone
    until = None
    for ahead in HORIZONS:  # the few notes due before a long horizon are checked at the shorter ones
        pending = [
            (row, last) for row, last in pending if not left_alone(params, row, last, now + ahead, prec, refresh_s)
        ]
        if not pending:
            until = now + ahead
            break
    if until is None:
        forget(engine)
        return
    engine.runtime.keep_quiet_sweep(Quiet(signature, key, now, until, scanned, len(alone), held, invalid))
