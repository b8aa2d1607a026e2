"""brief: what an assistant should know at the start of a conversation, within a token budget.

Tokens are counted as 4 characters each (a documented approximation; no tokenizer is loaded).
Items go in greedily, in this order: memories relevant to the topic, relevant memories due
for review, then the strongest current memories; superseded memories never appear. The text
ends with how many were left out and how to search for them; it never exceeds the budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..index import queries
from ..limits import check_query

if TYPE_CHECKING:
    from ..service import MemoryService

CHARS_PER_TOKEN = 4
MIN_TOKENS, MAX_TOKENS = 40, 100_000
TOPIC_RESULTS = 10
STRONGEST = 40
ITEM_CHARS = 240  # a memory's line is cut here: a briefing lists facts, get_memory reads them whole


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


def _footer(left: int, topic: str | None) -> str:
    how = f'search_memory(query="{topic[:60]}")' if topic else "search_memory(query=...)"
    return (f"\n{left} more memories left out; find them with {how}, "
            "or narrow by time with since/until.\n") if left else "\nNothing left out.\n"


def brief(svc: "MemoryService", topic: str | None = None, max_tokens: int = 800) -> dict[str, Any]:
    budget = check_budget(max_tokens) * CHARS_PER_TOKEN
    if topic is not None:
        topic = check_query(topic)
    topic = topic.strip() if isinstance(topic, str) and topic.strip() else None
    picks: list[tuple[str, Any, str]] = []  # (section, row-like dict, mark)
    seen: set[str] = set()
    if topic is not None:
        for hit in svc.search(topic, limit=TOPIC_RESULTS, scope="memories")["results"]:
            if hit["path"] not in seen:
                seen.add(hit["path"])
                picks.append(("review" if hit["review"] else "topic", hit, "(fading) " if hit["review"] else ""))
    superseded = queries.superseded_kinds(svc.store)
    for row in queries.strongest_memories(svc.store, max(STRONGEST, budget // 80) + len(superseded)):
        if row["path"] not in seen and row["path"] not in superseded:
            seen.add(row["path"])
            picks.append(("strongest", {"path": row["path"], "id": row["id"], "title": row["title"], "rowid": row["rowid"]}, ""))
    current = queries.memory_count(svc.store) - sum(1 for k in superseded.values() if k in ("stm", "ltm"))
    total = max(current, len(picks))
    header = f"# What you know{f' about {topic[:80]}' if topic else ''} (mnemovault)\n"
    text = header if len(header) <= budget else ""
    reserve = len(_footer(total, topic))  # the longest footer this briefing can need
    included: list[dict[str, Any]] = []
    for section, item, mark in picks:
        rowid = item.get("rowid")
        if rowid is None:
            hit_row = svc.store.note(item["path"])
            rowid = hit_row["rowid"] if hit_row is not None else None
        body = queries.body_of(svc.store, rowid) if rowid is not None else item.get("snippet", "")
        line = _line(item["title"], body, item["id"], mark)
        if len(text) + len(line) + reserve > budget:
            continue  # a shorter one further down may still fit
        text += line
        included.append({"path": item["path"], "id": item["id"], "section": section})
    footer = _footer(total - len(included), topic)
    if len(text) + len(footer) <= budget:
        text += footer
    text = text[:budget]  # the guarantee, whatever the arithmetic above
    return {"text": text, "tokens": -(-len(text) // CHARS_PER_TOKEN), "max_tokens": max_tokens,
            "included": included, "left_out": total - len(included)}
