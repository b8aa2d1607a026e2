"""What the MCP tools that save, find, read and use memories do beyond calling their facade method
(the session's project, checks of their own, the short form of a long answer). Their names,
arguments, descriptions and result types are declared in bridge/declarations/."""

from __future__ import annotations

from typing import Any

from vault_sync import limits as L
from vault_sync.errors import InvalidInput, MnemovaultError

from . import tool_args as A
from .mcp_common import MAX_LINKS, Call, tool_message
from .schemas import RefsArgs

BRIEF_NOTE = ("path", "id", "kind", "title", "status")


def _capped(view: dict[str, Any], key: str) -> None:
    """A memory's links or backlinks, at most MAX_LINKS, the full count beside them."""
    items = view.get(key)
    if isinstance(items, list) and len(items) > MAX_LINKS:
        view[key] = items[:MAX_LINKS]
        view[f"{key}_total"] = len(items)


def _read_each(svc: Any, refs: list[str]) -> list[dict[str, Any]]:
    """One result per ref, in order: the memory, or the error that ref met (the others still read)."""
    out: list[dict[str, Any]] = []
    for ref in refs:
        try:
            view = svc.get_memory([ref])[0]
        except MnemovaultError as exc:
            out.append({"ref": ref, "error": tool_message(exc)})
            continue
        _capped(view, "links")
        _capped(view, "backlinks")
        out.append({"ref": ref, **view})
    return out


async def save_memory(call: Call, a: A.SaveMemory, project: str | None) -> Any:
    project = None if a.shared else project
    return await call(
        lambda s: s.save(
            a.text,
            a.tags,
            a.title,
            a.strength,
            a.supersedes,
            project,
            a.across_projects,
            conversation=a.conversation,
            said_at=a.said_at,
        )
    )


async def save_memories(call: Call, a: A.SaveMemories, project: str | None) -> Any:
    project = None if a.shared else project
    result = await call(lambda s: s.save_many(a.items, a.conversation, a.batch_id, project, a.across_projects))
    for item in result.get("results", []):  # an answer that grows with the batch: the short form
        note = item.get("note")
        if isinstance(note, dict):
            item["note"] = {k: note.get(k) for k in BRIEF_NOTE if k in note}
    return result


async def search_memory(call: Call, a: A.SearchMemory, project: str | None) -> Any:
    if not a.query.strip():
        raise InvalidInput("`query` is empty; search needs words (recent_memories lists memories without a query)")
    if a.since_days is not None and a.used_since is not None:
        raise InvalidInput("give used_since or since_days (deprecated, the same in days), not both")
    return await call(
        lambda s: s.search_page(
            a.query,
            a.limit,
            a.offset,
            scope=a.scope,
            tags=a.tags,
            status=a.status,
            since_days=a.since_days,
            blend_review=a.blend_review,
            since=a.since,
            until=a.until,
            used_since=a.used_since,
            include_superseded=a.include_superseded,
            include_archived=a.include_archived,
            project=project,
            all_projects=a.all_projects,
        )
    )


async def recent_memories(call: Call, a: A.RecentMemories, project: str | None) -> Any:
    return await call(lambda s: s.recent(a.limit, a.offset, a.since, a.scope, project, a.all_projects))


async def recall_context(call: Call, a: A.RecallContext, project: str | None) -> Any:
    budget = min(a.max_tokens, L.ANSWER_CHARS // 4)  # 4 characters a token, as the briefing counts
    return await call(lambda s: s.brief(a.topic, budget, project, a.all_projects))


async def recall_context_prompt(call: Call, topic: str, max_tokens: str, project: str | None) -> str:
    """The prompt beside the tool: a briefing as the first message of a conversation."""
    try:
        budget = int(max_tokens)
    except ValueError:
        raise InvalidInput("max_tokens must be a whole number") from None
    result = await call(lambda s: s.brief(topic or None, budget, project))
    return "Here is what you already know from the user's memory vault:\n\n" + str(result["text"])


async def get_memory(call: Call, a: RefsArgs, project: str | None) -> Any:
    return await call(lambda s: _read_each(s, a.refs))
