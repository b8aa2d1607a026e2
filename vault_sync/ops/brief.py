"""brief: what an assistant should know at the start of a conversation, within a token budget.

Tokens are counted as 4 characters each (a documented approximation; no tokenizer is loaded).
Items go in greedily, in this order: memories relevant to the topic, relevant memories due
for review, then the strongest current memories; superseded memories never appear. The text
ends with how many were left out and how to search for them; it never exceeds the budget.

"Strongest" is the live score (use count, last use and strength under the configured decay
model, at the service's clock), as promotion and review use: the `decay_score` written in a
note lags behind its uses under the quiet write-back policy. The parts of the score that do
not change with time are cached per index state, so a briefing at 10,000 notes computes
only the decay per memory (~5 ms) and reads bodies in one query.
"""

from __future__ import annotations

import heapq
import json
import math
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..dates import parse_datetime
from ..engine import Engine
from ..errors import InvalidInput
from ..index import queries
from ..limits import check_query
from ..lookups import current_despite_marks
from ..projects import EVERYTHING, ProjectScope, scope_of
from ..scoring import ScoringParams, decay_factor

CHARS_PER_TOKEN = 4
MIN_TOKENS, MAX_TOKENS = 40, 100_000
TOPIC_RESULTS = 10
STRONGEST = 40
ITEM_CHARS = 240  # a memory's line is cut here: a briefing lists facts, get_memory reads them whole


def _json_chars(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def check_budget(max_tokens: object) -> int:
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or not MIN_TOKENS <= max_tokens <= MAX_TOKENS:
        raise InvalidInput(f"max_tokens must be a whole number from {MIN_TOKENS} to {MAX_TOKENS}")
    return max_tokens


def _line(title: str, body: str, ident: str | None, mark: str = "") -> str:
    text = " ".join(body.split())
    if len(text) > ITEM_CHARS:
        text = text[: ITEM_CHARS - 1].rstrip() + "…"
    same = text.lower().startswith(title.lower()[:40])
    head = text if same else f"{title}: {text}"
    return f"- {mark}{head} (id {ident})\n" if ident else f"- {mark}{head}\n"


def shown_topic(topic: str, n: int) -> str:
    """The topic as one plain line for the briefing's heading and footer: line breaks,
    control and bidi characters become spaces (a topic holding "\n- ..." must not read as
    a memory of the list), quotes are kept out, at most `n` characters."""
    plain = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in topic)
    return " ".join(plain.replace('"', "'").split())[:n]


def _footer(left: int, topic: str | None) -> str:
    how = f'search_memory(query="{shown_topic(topic, 60)}")' if topic else "search_memory(query=...)"
    return (
        (f"\n{left} more memories left out; find them with {how}, or narrow by time with since/until.\n")
        if left
        else "\nNothing left out.\n"
    )


@dataclass
class _Group:
    """One kind's memories, with two orders for the threshold scan below."""

    items: list[tuple[Any, ...]] = field(
        default_factory=list
    )  # (uses ** beta, strength, last use epoch | None, rowid, path, id, title)
    by_base: list[int] = field(default_factory=list)  # by uses ** beta * strength, highest first
    by_last: list[int] = field(default_factory=list)  # by last use, latest first (unknown counts as now)


# ((index state, beta), {"ltm": _Group, "stm": _Group}): kept by the service's runtime
# (runtime.brief_inputs), rebuilt when the index changes
BriefInputs = tuple[tuple[Any, ...], dict[str, _Group]]


def _groups(engine: Engine) -> dict[str, _Group]:
    key = (engine.store.change_signature(), engine.params.beta)
    hit: BriefInputs | None = engine.runtime.brief_inputs
    if hit is not None and hit[0] == key:
        return hit[1]
    beta = engine.params.beta
    groups = {"ltm": _Group(), "stm": _Group()}
    exempt = current_despite_marks(engine)  # a hand-written loop's members are all current
    for rowid, path, ident, title, kind, uses, strength, last_used, created, project in queries.current_memory_scores(
        engine.store, exempt
    ):
        last = parse_datetime(last_used) or parse_datetime(created)
        groups[kind].items.append(
            (
                max(uses or 0, 0) ** beta,
                strength if strength is not None else 1.0,
                last.timestamp() if last is not None else None,
                rowid,
                path,
                ident,
                title,
                project,
            )
        )
    for g in groups.values():
        order = range(len(g.items))
        g.by_base = sorted(order, key=lambda i: -(g.items[i][0] * g.items[i][1]))
        g.by_last = sorted(order, key=lambda i: -(g.items[i][2] if g.items[i][2] is not None else math.inf))
    engine.runtime.keep_brief_inputs((key, groups))
    return groups


def _top(
    group: _Group, p: ScoringParams, t: float, k: int, scope: ProjectScope = EVERYTHING
) -> list[tuple[float, tuple[Any, ...]]]:
    """The k highest live scores of a group, without scoring every memory: a score grows with
    uses ** beta * strength and with the last use, so walking both orders at once, no memory
    not yet seen can beat base(i-th by base) * decay(i-th by last use); stop once the k-th
    best reaches that (threshold algorithm, Fagin et al.). A memory outside `scope` is passed
    over: leaving candidates out keeps the bound an upper bound."""
    items = group.items
    heap: list[tuple[float, int, int]] = []  # (score, -rowid, index): the weakest on top
    seen: set[int] = set()

    def decay(last: float | None) -> float:
        return decay_factor(p, t - last if last is not None else 0.0)

    for a, b in zip(group.by_base, group.by_last):
        for i in (a, b):
            if i in seen:
                continue
            seen.add(i)
            if not scope.admits(items[i][7]):
                continue
            uses_b, strength, last, rowid = items[i][:4]
            entry = (uses_b * decay(last) * strength, -rowid, i)
            if len(heap) < k:
                heapq.heappush(heap, entry)
            elif entry > heap[0]:
                heapq.heapreplace(heap, entry)
        if len(heap) >= k:
            bound = items[a][0] * items[a][1] * decay(items[b][2])
            if heap[0][0] >= bound:
                break
    return [(score, items[i]) for score, _, i in sorted(heap, reverse=True)]


def strongest(
    engine: Engine, now: datetime, limit: int, scope: ProjectScope = EVERYTHING
) -> tuple[list[dict[str, Any]], int]:
    """(the `limit` strongest current memories of `scope` by live score, LTM before STM; how many
    current memories it holds). The score is ageing.py's at `now`."""
    groups = _groups(engine)
    t = now.timestamp()
    best = _top(groups["ltm"], engine.params, t, limit, scope)
    if len(best) < limit:
        best += _top(groups["stm"], engine.params, t, limit - len(best), scope)
    out = [
        {"path": item[4], "id": item[5], "title": item[6], "rowid": item[3], "score": score, "project": item[7]}
        for score, item in best
    ]
    if scope.everything:
        return out, sum(len(g.items) for g in groups.values())
    return out, sum(1 for g in groups.values() for item in g.items if scope.admits(item[7]))


def brief(
    engine: Engine,
    topic: str | None = None,
    max_tokens: int = 800,
    project: str | None = None,
    all_projects: bool = False,
) -> dict[str, Any]:
    """A briefing of `project`'s memories and shared ones (shared only when None; every
    project's with `all_projects`); the answer names the project it was scoped to."""
    scope = scope_of(project, all_projects)
    budget = check_budget(max_tokens) * CHARS_PER_TOKEN
    if topic is not None:
        topic = check_query(topic)
    topic = topic.strip() if isinstance(topic, str) and topic.strip() else None
    picks: list[tuple[str, Any, str]] = []  # (section, row-like dict, mark)
    seen: set[str] = set()
    if topic is not None:
        from ..search.hybrid import checked

        found = checked(
            engine, topic, limit=TOPIC_RESULTS, scope="memories", project=scope.name, all_projects=scope.everything
        )
        for hit in found["results"]:
            if hit["path"] not in seen:
                seen.add(hit["path"])
                picks.append(("review" if hit["review"] else "topic", hit, "(fading) " if hit["review"] else ""))
    top, current = strongest(engine, engine.now(), max(STRONGEST, budget // 80), scope)
    for item in top:
        if item["path"] not in seen:
            seen.add(item["path"])
            picks.append(("strongest", item, ""))
    total = max(current, len(picks))
    about = f' about "{shown_topic(topic, 80)}"' if topic else ""
    where = f", project {scope.name}" if scope.name and not scope.everything else ""
    where = ", every project" if scope.everything and queries.any_project(engine.store) else where
    header = f"# What you know{about} (mnemovault{where})\n"
    # the whole answer counts, as JSON: the text (escaped), the included list and the fields around them
    skeleton = {
        "text": "",
        "tokens": max_tokens,
        "max_tokens": max_tokens,
        "included": [],
        "left_out": total,
        **scope.describe(),
    }
    used = _json_chars(skeleton)
    text = header if used + _json_chars(header) - 2 <= budget else ""
    used += _json_chars(text) - 2
    reserve = _json_chars(_footer(total, topic)) - 2  # the longest footer this briefing can need
    included: list[dict[str, Any]] = []
    rowids = {item["path"]: item.get("rowid") for _, item, _ in picks}
    missing = [p for p, r in rowids.items() if r is None]
    if missing:  # search hits: their rowids, in one query
        rowids.update(queries.rowids_of(engine.store, missing))
    bodies = queries.bodies_of(engine.store, [r for r in rowids.values() if r is not None])
    for section, item, mark in picks:
        rowid = rowids.get(item["path"])
        body = bodies.get(rowid, "") if rowid is not None else item.get("snippet", "")
        line = _line(item["title"], body, item["id"], mark)
        entry = {"path": item["path"], "id": item["id"], "section": section, "project": item.get("project")}
        cost = _json_chars(line) - 2 + _json_chars(entry) + 2  # ", " between entries
        if used + cost + reserve > budget:
            continue  # a shorter one further down may still fit
        text += line
        used += cost
        included.append(entry)
    footer = _footer(total - len(included), topic)
    if used + _json_chars(footer) - 2 <= budget:
        text += footer
    while text and _json_chars({**skeleton, "text": text, "included": included}) > budget:
        text = text[: len(text) * 9 // 10]  # the guarantee, whatever the arithmetic above
    return {
        "text": text,
        "tokens": -(-len(text) // CHARS_PER_TOKEN),
        "max_tokens": max_tokens,
        "included": included,
        "left_out": total - len(included),
        **scope.describe(),
    }
