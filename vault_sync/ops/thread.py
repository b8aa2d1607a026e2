"""A memory's thread: the memories said before and after it in the same conversation.

Search finds one turn ("Yeah, glad to be part of it!"); what it answers is in the turns
around it. `thread` lists them in the order they were said (`said_at`, then path for a
conversation without times), whatever their kind: an archived or superseded turn is still
part of what was said, and says so in its `kind` and `status`."""

from __future__ import annotations

from typing import Any

from .. import lookups
from ..engine import Engine
from ..errors import WrongState
from ..index import queries
from ..limits import check_limit

MAX_AROUND = 50  # turns before or after in one call


def thread(engine: Engine, ref: str, before: int = 5, after: int = 5) -> dict[str, Any]:
    """{"conversation", "path", "turns": [{path, id, title, kind, status, said_at, text,
    this}], "earlier", "later"}: up to `before` turns said before the memory and `after`
    after it; `earlier` / `later` count the turns of the conversation left out each side."""
    before = check_limit(before, MAX_AROUND, "before", minimum=0)
    after = check_limit(after, MAX_AROUND, "after", minimum=0)
    row = lookups.resolve(engine, ref)
    conversation = row["conversation"]
    if conversation is None:
        raise WrongState(f"{row['path']} was not said in a conversation (it has no `conversation` key)")
    rows = queries.conversation_turns(engine.store, conversation)
    at = next(i for i, r in enumerate(rows) if r["rowid"] == row["rowid"])
    start, end = max(0, at - before), min(len(rows), at + after + 1)
    picked = rows[start:end]
    texts = queries.bodies_of(engine.store, [r["rowid"] for r in picked])
    turns = [
        {
            "path": r["path"],
            "id": r["id"],
            "title": r["title"],
            "kind": r["kind"],
            "status": r["status"],
            "said_at": r["said_at"],
            "text": texts.get(r["rowid"], "").strip(),
            "this": r["rowid"] == row["rowid"],
        }
        for r in picked
    ]
    return {
        "conversation": conversation,
        "path": row["path"],
        "turns": turns,
        "earlier": start,
        "later": len(rows) - end,
    }
