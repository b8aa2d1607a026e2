"""Conversation context: a memory said in a conversation is also scored by its neighbours.

A chat turn such as "Yes, I went there yesterday!" carries little on its own; the turns said
just before and after it (the same `conversation`, `said_at` within minutes) carry the topic.
After the first ranking, the best candidates and their neighbours are rescored:

    rel' = rel + CONTEXT_WEIGHT * max over neighbours n of rel(n) * closeness(n)

where closeness falls linearly from 1 (said at the same moment) to 0 at WINDOW_S apart. A
neighbour of a strong candidate becomes a candidate itself: the answer is often the reply to
the turn that holds the question's words. Memories without a conversation keep their score,
so a vault that never saves conversations ranks exactly as before.

Measured on LoCoMo (bench --locomo, five dev conversations): the max beat a decayed sum of
the neighbours, and favouring earlier or later turns did not help; the table is in docs/benchmarks.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..index import queries

if TYPE_CHECKING:
    from ..index.store import IndexStore

CONTEXT_TOP = 20  # rescore the best this many and their neighbours (20, 50 and 100 ranked alike)
WINDOW_S = 300.0  # a neighbour was said within this many seconds (180 s was worse, 600 s level)
CONTEXT_WEIGHT = 0.7


def closeness(seconds_apart: float, window_s: float) -> float:
    return max(0.0, 1.0 - abs(seconds_apart) / (window_s + 1.0))


def rescore(
    store: "IndexStore",
    rels: dict[int, float],
    relevance_of: Callable[[list[int]], dict[int, float]],
    weight: float | None = None,
    top: int | None = None,
    window_s: float | None = None,
) -> dict[int, float]:
    """`rels` with the best `top` and their neighbours rescored (the rest unchanged).

    `relevance_of(rowids)` gives the own relevance of notes outside `rels` (neighbours that
    were not candidates); the result also holds the neighbours it added."""
    weight = CONTEXT_WEIGHT if weight is None else weight
    top = CONTEXT_TOP if top is None else top
    window_s = WINDOW_S if window_s is None else window_s
    if weight <= 0 or not rels:
        return dict(rels)
    added: set[int] = set()
    best = sorted(rels, key=lambda r: -rels[r])[:top]
    near_of = queries.conversation_neighbours(store, best, window_s)
    if not near_of:
        return dict(rels)  # none of them was said in a conversation
    # a neighbour added here is scored from the strong candidates next to it (one query, not
    # a second round for its own neighbours: those are weaker, and it halved search time)
    for rowid, near in list(near_of.items()):
        for n, apart in near:
            if n not in near_of or n in added:
                added.add(n)
                near_of.setdefault(n, []).append((rowid, -apart))
    own = dict(rels)
    missing = [r for r in near_of if r not in own]
    if missing:
        own.update(relevance_of(missing))
    out = dict(rels)
    for rowid, near in near_of.items():
        ctx = max(own.get(n, 0.0) * closeness(apart, window_s) for n, apart in near)
        out[rowid] = own.get(rowid, 0.0) + weight * ctx
    return out
