"""The MCP tools that save, find, read and use memories (the first of tools/list; the rest are in
mcp_vault_tools.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import Field, Strict

from vault_sync import limits as L
from vault_sync.errors import MnemovaultError

from . import mcp_results as R
from . import schemas as S
from .mcp_common import MAX_LINKS, MOVES, READ, Call, hints, tool_message
from .mcp_project import current

BRIEF_NOTE = ("path", "id", "kind", "title", "status")
Ref = S.Ref


def _capped(view: dict, key: str) -> None:
    """A memory's links or backlinks, at most MAX_LINKS, the full count beside them."""
    items = view.get(key)
    if isinstance(items, list) and len(items) > MAX_LINKS:
        view[key] = items[:MAX_LINKS]
        view[f"{key}_total"] = len(items)


def _read_each(svc: Any, refs: list[str]) -> list[dict]:
    """One result per ref, in order: the memory, or the error that ref met (the others still read)."""
    out: list[dict] = []
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


def register_memory_tools(mcp: FastMCP, call: Call) -> None:
    """Adds the tools on `mcp` in the order tools/list shows them."""

    @mcp.tool(annotations=hints())
    async def save_memory(
        text: Annotated[
            S.Text, Field(description="The memory: one self-contained fact, decision or preference, in plain words.")
        ],
        tags: Annotated[S.Tags | None, Field(description="Topic tags, e.g. ['project/atlas', 'database'].")] = None,
        title: Annotated[
            S.Title | None, Field(description="Short title; becomes the note's name. Default: the first words.")
        ] = None,
        strength: Annotated[S.Strength, Field(description="Importance 0-2 (1 = normal).")] = 1.0,
        conversation: Annotated[
            S.Conversation | None,
            Field(description="An id of the conversation this was said in; memories sharing it are one thread."),
        ] = None,
        said_at: Annotated[
            S.SaidAt | None, Field(description="When it was said, ISO time (e.g. 2023-05-08T13:56:00Z).")
        ] = None,
        supersedes: Annotated[
            S.Refs | None,
            Field(
                description="Ids or paths of memories this one replaces (an updated fact): they are marked superseded."
            ),
        ] = None,
        shared: Annotated[
            S.Flag,
            Field(
                description=(
                    "Save it for every project (e.g. the user's preferences); by default it is filed under this "
                    "session's project (from the client's roots)."
                )
            ),
        ] = False,
        across_projects: Annotated[
            S.Flag, Field(description="Let `supersedes` name another project's memory (refused otherwise).")
        ] = False,
    ) -> R.Saved:
        """Remember something: save a new short-term memory, one new note in STM/. A fact already held (the same
        text, or the same fact in other words with no detail added or changed) instead reinforces that memory's use
        count: the answer says "reinforced <id> (similarity x)". Secrets are refused. To update a fact, save the new
        version with `supersedes`=[old id]: the old memories get `superseded_by` and `status: superseded` (search
        then returns only the new one). The note is filed under this session's project (`project` key) unless
        shared=true."""
        project = None if shared else current()
        return await call(
            lambda s: s.save(
                text,
                tags,
                title,
                strength,
                supersedes,
                project,
                across_projects,
                conversation=conversation,
                said_at=said_at,
            )
        )

    @mcp.tool(annotations=hints())
    async def save_memories(
        items: Annotated[
            list[dict],
            Field(
                min_length=1,
                max_length=2000,
                description=(
                    "The memories, in order: each {text, tags?, title?, strength?, conversation?, said_at?, "
                    "supersedes?}; "
                    "said_at is an ISO time, conversation any id (the note gets both as frontmatter keys); "
                    "supersedes lists ids or paths of existing memories the item replaces, as in save_memory."
                ),
            ),
        ],
        conversation: Annotated[
            str | None, Field(description="The conversation every item belongs to, unless an item names its own.")
        ] = None,
        batch_id: Annotated[
            str | None,
            Field(
                max_length=200,
                description=(
                    "Any id for this batch, chosen by the client: retrying the same batch (after an error or a lost "
                    "answer) with the same id creates and counts nothing twice; the same id with other items is "
                    "refused."
                ),
            ),
        ] = None,
        shared: Annotated[
            S.Flag, Field(description="Save them for every project, not under this session's project.")
        ] = False,
        across_projects: Annotated[
            S.Flag, Field(description="Let an item's `supersedes` name another project's memory.")
        ] = False,
    ) -> R.SavedBatch:
        """Save many memories in one call (e.g. a whole conversation's turns): writes one note in STM/ per item. Each
        item gets its own result; a refused item (too short, a secret, a supersedes ref that does not resolve) does not
        stop the others. An item repeating a fact already held reinforces its memory, as in save_memory. An item with
        `supersedes` marks the old memories `superseded_by` it and `status: superseded`.
        Each result names its note briefly (path, id, kind, title, status): get_memory reads one in full."""
        project = None if shared else current()
        result = await call(lambda s: s.save_many(items, conversation, batch_id, project, across_projects))
        for item in result.get("results", []):  # an answer that grows with the batch: the short form
            note = item.get("note")
            if isinstance(note, dict):
                item["note"] = {k: note.get(k) for k in BRIEF_NOTE if k in note}
        return result

    @mcp.tool(annotations=READ)
    async def search_memory(
        query: Annotated[
            S.Query,
            Field(
                min_length=1,
                description=(
                    "What you are looking for, in natural language (not empty: for a listing without a query "
                    "use recent_memories)."
                ),
            ),
        ],
        limit: Annotated[S.SearchLimit, Field(description="Most results in this page (1-200).")] = 10,
        offset: Annotated[
            S.Offset,
            Field(
                le=199,
                description=(
                    "Skip this many results (the next page: the answer's next_offset). Search ranks the best 200."
                ),
            ),
        ] = 0,
        scope: Annotated[
            S.Scope,
            Field(
                description=(
                    "all: memories and the user's notes; stm: short-term memories; ltm: long-term; memories: both; "
                    "notes: the user's own notes; archive: only archived (forgotten) memories."
                )
            ),
        ] = "all",
        tags: Annotated[S.Tags | None, Field(description="Only results with all these tags.")] = None,
        status: Annotated[
            S.Status | None,
            Field(
                description=(
                    "Only memories with this status (active, promoted, archived); archived searches the archive."
                )
            ),
        ] = None,
        since_days: Annotated[
            S.Days | None, Field(description="Deprecated: the same as used_since='<n>d' (give one of the two).")
        ] = None,
        blend_review: Annotated[
            S.Flag, Field(description="Mix in fading memories relevant to the query (marked review).")
        ] = True,
        since: Annotated[
            S.When | None, Field(description="Only memories created at or after: ISO date or duration (7d).")
        ] = None,
        until: Annotated[
            S.When | None, Field(description="Only memories created at or before: ISO date or duration.")
        ] = None,
        used_since: Annotated[
            S.When | None, Field(description="Only memories last used at or after: ISO date or duration (7d).")
        ] = None,
        include_superseded: Annotated[
            S.Flag, Field(description="Also return memories a newer one replaced (each names its successor).")
        ] = False,
        include_archived: Annotated[
            S.Flag | None,
            Field(
                description=(
                    "Also return archived memories (status archived, ranked below current ones). Default: only when "
                    "since, until, used_since or since_days is given. A search that leaves them out and is bounded in "
                    "time "
                    "or finds nothing counts those that match in archived_matches."
                )
            ),
        ] = None,
        all_projects: Annotated[
            S.Flag,
            Field(description="Every project's memories, not only this project's and shared ones (the default)."),
        ] = False,
    ) -> R.SearchResult:
        """Search memories and notes by meaning and words; each hit carries path, id, title, snippet, score, status,
        created, last_used and tags. Changes nothing. Paged: `next_offset` (null at the end) is the next page's offset.
        Archived (forgotten) memories are found with scope="archive" or include_archived=true, and by any search bounded
        in time; bring one back with restore_memory(hit id). For what was said around a hit, read_thread(hit id);
        for what was saved lately without a query, recent_memories.
        `semantic` is false (with a `notice`) when only full-text search answered, e.g. while the embedding model is
        still loading. Scoped to this session's project plus shared memories (the answer's `project`; each hit's
        `project`, null when shared) unless all_projects=true."""
        if not query.strip():
            raise ToolError(
                "invalid: `query` is empty; search needs words (recent_memories lists memories without a query)"
            )
        if since_days is not None and used_since is not None:
            raise ToolError("invalid: give used_since or since_days (deprecated, the same in days), not both")
        project = current()
        return await call(
            lambda s: s.search_page(
                query,
                limit,
                offset,
                scope=scope,
                tags=tags,
                status=status,
                since_days=since_days,
                blend_review=blend_review,
                since=since,
                until=until,
                used_since=used_since,
                include_superseded=include_superseded,
                include_archived=include_archived,
                project=project,
                all_projects=all_projects,
            )
        )

    @mcp.tool(annotations=READ)
    async def recent_memories(
        limit: Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Most memories in this page.")] = 20,
        offset: Annotated[S.Offset, Field(description="Skip this many (the next page: the answer's next_offset).")] = 0,
        since: Annotated[
            S.When | None,
            Field(description="Only memories created at or after: ISO date or duration (7d = the last week)."),
        ] = None,
        scope: Annotated[
            Literal["memories", "stm", "ltm", "archive", "all"],
            Field(
                description=(
                    "memories: short- and long-term; stm; ltm; archive: archived (forgotten) ones; all: the three."
                )
            ),
        ] = "memories",
        all_projects: Annotated[
            S.Flag,
            Field(description="Every project's memories, not only this project's and shared ones (the default)."),
        ] = False,
    ) -> R.NotePage:
        """What was saved lately, newest first, without a query: "what did I say last week" (since="7d"), "what do you
        remember from today". Each memory carries status, created, last_used and tags. Paged with a total. Changes
        nothing."""
        project = current()
        return await call(lambda s: s.recent(limit, offset, since, scope, project, all_projects))

    @mcp.tool(annotations=READ)
    async def recall_context(
        topic: Annotated[
            S.Query | None, Field(description="What the conversation is about; omit for a general briefing.")
        ] = None,
        max_tokens: Annotated[
            int, Strict(), Field(ge=40, le=100_000, description="Budget (4 characters a token).")
        ] = 800,
        all_projects: Annotated[
            S.Flag,
            Field(description="Every project's memories, not only this project's and shared ones (the default)."),
        ] = False,
    ) -> R.Briefing:
        """Brief me: a briefing to start a conversation with: current memories on the topic, fading ones worth a
        mention, the strongest; the whole answer packed into the budget (at most 10,000 tokens: the ceiling of any
        answer), ending with what was left out. Changes nothing."""
        budget = min(max_tokens, L.ANSWER_CHARS // 4)  # 4 characters a token, as the briefing counts
        project = current()
        return await call(lambda s: s.brief(topic, budget, project, all_projects))

    @mcp.prompt(name="recall_context", description="Start with what mnemovault knows about a topic.")
    async def recall_context_prompt(topic: str = "", max_tokens: str = "800") -> str:
        try:
            budget = int(max_tokens)
        except ValueError:
            raise ToolError("invalid: max_tokens must be a whole number") from None
        project = current()
        result = await call(lambda s: s.brief(topic or None, budget, project))
        return "Here is what you already know from the user's memory vault:\n\n" + result["text"]

    @mcp.tool(annotations=MOVES)
    async def supersede_memory(
        old: Annotated[S.Ref, Field(description="The memory that no longer holds.")],
        by: Annotated[S.Ref, Field(description="The memory that replaces it.")],
        across_projects: Annotated[
            S.Flag, Field(description="Allow the two to be of different projects (refused otherwise).")
        ] = False,
    ) -> R.Superseded:
        """Mark an existing memory as superseded by a newer existing one (to update a fact in one step, prefer
        save_memory with supersedes): writes `superseded_by` and `status: superseded` into the old note and `supersedes`
        into the new one, and takes the old note out of the `supersedes` list of a memory that replaced it before;
        search then returns only the newer, and the old is archived (restorable) by the next GC."""
        return await call(lambda s: s.supersede(old, by, across_projects))

    @mcp.tool(annotations=READ)
    async def get_memory(refs: Annotated[S.Refs, Field(description="Memory ids or note paths.")]) -> list[R.ReadItem]:
        """Read memories in full: text, fields, score, outgoing links and backlinks (the first 100 of each; `*_total`
        counts the rest). One result per ref, in order: a ref that does not resolve gets {ref, error} and the others
        are still read. Changes nothing; reading is not a use: after using memories, report them with
        observe_memory_usage."""
        return await call(lambda s: _read_each(s, refs))

    @mcp.tool(annotations=hints())
    async def touch_memory(
        ref: Annotated[Ref, Field(description="The memory's id or path.")],
        boost: Annotated[S.Flag, Field(description="Also raise strength by 0.1.")] = False,
    ) -> R.Touched:
        """Reinforce one memory, optionally raising its strength (boost). To report memories you used, call
        observe_memory_usage instead: it is the one way to say "I used this". Rewrites the memory's frontmatter
        (last_used = now, use_count + 1). Returns old and new score."""
        return await call(lambda s: s.touch(ref, boost))

    @mcp.tool(annotations=hints(idempotent=True))
    async def pin_memory(ref: Annotated[Ref, Field(description="The memory's id or path.")]) -> R.Pinned:
        """Pin a memory the person wants kept as it is ("always remember X"): it keeps its score (the one of its
        last use), is never queued for review, never archived by GC and promoted only when asked. Writes `pinned:
        true` into its frontmatter; pinning a pinned memory changes nothing (changed: false)."""
        return await call(lambda s: s.pin(ref))

    @mcp.tool(annotations=hints(idempotent=True))
    async def unpin_memory(ref: Annotated[Ref, Field(description="The memory's id or path.")]) -> R.Pinned:
        """Unpin a memory: removes `pinned` from its frontmatter; it ages from its last use again (one long unused
        can be due for GC at once, which then archives it). Unpinning an unpinned memory changes
        nothing."""
        return await call(lambda s: s.unpin(ref))

    @mcp.tool(annotations=hints())
    async def observe_memory_usage(
        refs: Annotated[S.LooseRefs, Field(description="The memories you used.")],
        context_tags: Annotated[
            S.Tags | None, Field(description="Tags describing the current conversation's topic.")
        ] = None,
    ) -> R.Observed:
        """Say "I used this": the one way to report memories you used after answering with them (keeps them alive).
        Rewrites each one's frontmatter (last_used, use_count); use across unrelated topics strengthens them more.
        A bad ref is listed under errors; the others are still counted."""
        return await call(lambda s: s.observe(refs, context_tags))

    @mcp.tool(annotations=READ)
    async def read_thread(
        ref: Annotated[Ref, Field(description="A memory said in a conversation: its id or path (e.g. a search hit).")],
        before: Annotated[int, Strict(), Field(ge=0, le=50, description="Turns said before it to include.")] = 5,
        after: Annotated[int, Strict(), Field(ge=0, le=50, description="Turns said after it to include.")] = 5,
    ) -> R.Thread:
        """What was said around this: the memories said around one memory in its conversation, in the order they were
        said, the memory itself marked `this`: read the exchange a short search hit ("Yes, I went there yesterday!")
        belongs to. Changes nothing."""
        return await call(lambda s: s.thread(ref, before, after))
