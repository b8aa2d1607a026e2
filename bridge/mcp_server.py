"""The MCP server: one tool per operation, each a few lines over MemoryService."""

from __future__ import annotations

import json
from typing import Annotated, Any, Callable, cast

from anyio import to_thread
from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError, ToolError
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.middleware import Middleware
from pydantic import Field, Strict, ValidationError

from vault_sync.errors import MnemovaultError
from vault_sync import limits as L
from vault_sync.limits import MAX_TITLE_CHARS, check_name
from vault_sync.secret_gate import check_fields

from . import mcp_results as R
from . import schemas as S
from .operations import plain
from .errors import engine_error
from .version import version

INSTRUCTIONS = """mnemovault keeps memories as Markdown notes in the user's Obsidian vault.
Save short facts worth remembering with save_memory; search before answering questions about
the user's work with search_memory; after using memories, report them with
observe_memory_usage so they stay alive. When a new fact replaces an old one (a changed
preference, a moved date), save it with supersedes=[old id]: search then returns only the
current fact (a save answer's may_supersede lists memories it may replace). At the start of
a conversation call recall_context(topic, max_tokens) once instead of many searches.
Memories fade unless used; strong ones are
promoted to long-term notes, weak ones archived (never deleted: search_memory(scope="archive")
finds them, restore_memory brings one back)."""


Ref = S.Ref
Offset = Annotated[S.Offset, Field(description="Skip this many items (pagination).")]


class ArgumentErrors(Middleware):
    """Argument errors in our own words: the field named, the input never echoed back
    (fastmcp's default text is pydantic's, which quotes the input)."""

    async def on_call_tool(self, context, call_next):
        try:
            return await call_next(context)
        except FastMCPValidationError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(f"invalid: {S.message(cause)}") from None
            raise


# MCP tool annotations: hints for clients deciding whether a call needs the person's consent.
# Every tool acts on the local vault only (openWorldHint false).
def hints(read_only: bool = False, destructive: bool = False, idempotent: bool = False) -> dict:
    return {"readOnlyHint": read_only, "destructiveHint": destructive,
            "idempotentHint": idempotent, "openWorldHint": False}


READ = hints(read_only=True, idempotent=True)


def page(items: list, offset: int, limit: int) -> dict:
    return {"items": items[offset:offset + limit], "total": len(items), "offset": offset,
            "next_offset": offset + limit if offset + limit < len(items) else None}


def tool_message(exc: MnemovaultError) -> str:
    """`<code>: <message>`, without repeating a code the message already starts with."""
    return exc.tagged()


def build_mcp(get_service: Callable[[], Any]) -> FastMCP:
    mcp = FastMCP("mnemovault", instructions=INSTRUCTIONS, version=version(), strict_input_validation=True)
    mcp.add_middleware(ArgumentErrors())

    async def call(fn: Callable[[Any], Any]) -> Any:
        svc = get_service()
        try:
            return json.loads(json.dumps(plain(await to_thread.run_sync(lambda: fn(svc))), default=str))
        except MnemovaultError as exc:
            raise ToolError(tool_message(exc)) from None
        except OSError as exc:  # a storage fault the engine did not name: say what, not which temp file
            err = engine_error(exc)
            if isinstance(err, MnemovaultError):
                raise ToolError(tool_message(err)) from None
            raise

    @mcp.tool(annotations=hints())
    async def save_memory(
        text: Annotated[S.Text, Field(description="The memory: one self-contained fact, decision or preference, in plain words.")],
        tags: Annotated[S.Tags | None, Field(description="Topic tags, e.g. ['project/atlas', 'database'].")] = None,
        title: Annotated[S.Title | None, Field(description="Short title; becomes the note's name. Default: the first words.")] = None,
        strength: Annotated[S.Strength, Field(description="Importance 0-2 (1 = normal).")] = 1.0,
        conversation: Annotated[S.Conversation | None, Field(description="An id of the conversation this was said in; memories sharing it are one thread.")] = None,
        said_at: Annotated[S.SaidAt | None, Field(description="When it was said, ISO time (e.g. 2023-05-08T13:56:00Z).")] = None,
        supersedes: Annotated[S.Refs | None, Field(description="Ids or paths of memories this one replaces (an updated fact): they are marked superseded.")] = None,
    ) -> R.Saved:
        """Save a new short-term memory: writes one new note in STM/ (an exact duplicate instead reinforces the existing
        note's use count). Secrets are refused. With `supersedes`, the old memories get `superseded_by` and `status: superseded`."""
        if conversation is None and said_at is None:
            return await call(lambda s: s.save(text, tags, title, strength, supersedes))
        return await call(lambda s: s.save_said(text, tags, title, strength, conversation, said_at, supersedes))

    @mcp.tool(annotations=hints())
    async def save_memories(
        items: Annotated[list[dict], Field(min_length=1, max_length=2000, description=(
            "The memories, in order: each {text, tags?, title?, strength?, conversation?, said_at?, supersedes?}; "
            "said_at is an ISO time, conversation any id (the note gets both as frontmatter keys); "
            "supersedes lists ids or paths of existing memories the item replaces, as in save_memory."))],
        conversation: Annotated[str | None, Field(description="The conversation every item belongs to, unless an item names its own.")] = None,
        batch_id: Annotated[str | None, Field(max_length=200, description=(
            "Any id for this batch, chosen by the client: retrying the same batch (after an error or a lost answer) with the "
            "same id creates and counts nothing twice."))] = None,
    ) -> R.SavedBatch:
        """Save many memories in one call (e.g. a whole conversation's turns): writes one note in STM/ per item. Each item gets its own result;
        a refused item (too short, a secret, a supersedes ref that does not resolve) does not stop the others.
        An item with `supersedes` marks the old memories `superseded_by` it and `status: superseded`."""
        return await call(lambda s: s.save_many(items, conversation, batch_id))

    @mcp.tool(annotations=READ)
    async def search_memory(
        query: Annotated[S.Query, Field(description="What you are looking for, in natural language.")],
        limit: Annotated[S.SearchLimit, Field(description="Most results to return (1-200).")] = 10,
        scope: Annotated[S.Scope, Field(description=(
            "all: memories and the user's notes; stm: short-term memories; ltm: long-term; memories: both; "
            "notes: the user's own notes; archive: only archived (forgotten) memories."))] = "all",
        tags: Annotated[S.Tags | None, Field(description="Only results with all these tags.")] = None,
        status: Annotated[S.Status | None, Field(description="Only memories with this status (active, promoted, archived); archived searches the archive.")] = None,
        since_days: Annotated[S.Days | None, Field(description="Only memories used within this many days.")] = None,
        blend_review: Annotated[S.Flag, Field(description="Mix in fading memories relevant to the query (marked review).")] = True,
        since: Annotated[S.When | None, Field(description="Only memories created at or after: ISO date or duration (7d).")] = None,
        until: Annotated[S.When | None, Field(description="Only memories created at or before: ISO date or duration.")] = None,
        used_since: Annotated[S.When | None, Field(description="Only memories last used at or after: ISO date or duration.")] = None,
        include_superseded: Annotated[S.Flag, Field(description="Also return memories a newer one replaced (each names its successor).")] = False,
        include_archived: Annotated[S.Flag | None, Field(description=(
            "Also return archived memories (status archived, ranked below current ones). Default: only when "
            "since, until, used_since or since_days is given. A search that leaves them out and is bounded in time "
            "or finds nothing counts those that match in archived_matches."))] = None,
    ) -> R.SearchResult:
        """Search memories and notes by meaning and words; each hit carries path, id, title, snippet, score, status,
        created, last_used and tags. Changes nothing. Archived (forgotten) memories are found with scope="archive" or
        include_archived=true, and by any search bounded in time; bring one back with restore_memory(hit id).
        `semantic` is false (with a `notice`) when only full-text search answered, e.g. while the embedding model is still loading."""
        return await call(lambda s: s.search(query, limit, scope, tags, status, since_days, blend_review,
                                             since, until, used_since, include_superseded, include_archived))

    @mcp.tool(annotations=READ)
    async def recall_context(
        topic: Annotated[S.Query | None, Field(description="What the conversation is about; omit for a general briefing.")] = None,
        max_tokens: Annotated[int, Strict(), Field(ge=40, le=100_000, description="Budget (4 characters a token).")] = 800,
    ) -> R.Briefing:
        """A briefing to start a conversation with: current memories on the topic, fading ones worth a
        mention, the strongest; packed into the budget, ending with what was left out. Changes nothing."""
        return await call(lambda s: s.brief(topic, max_tokens))

    @mcp.prompt(name="recall_context", description="Start with what mnemovault knows about a topic.")
    async def recall_context_prompt(topic: str = "", max_tokens: str = "800") -> str:
        try:
            budget = int(max_tokens)
        except ValueError:
            raise ToolError("invalid: max_tokens must be a whole number") from None
        result = await call(lambda s: s.brief(topic or None, budget))
        return "Here is what you already know from the user's memory vault:\n\n" + result["text"]

    @mcp.tool(annotations=hints(idempotent=True))
    async def supersede_memory(
        old: Annotated[S.Ref, Field(description="The memory that no longer holds.")],
        by: Annotated[S.Ref, Field(description="The memory that replaces it.")],
    ) -> R.Superseded:
        """Mark a memory as superseded by a newer one: writes `superseded_by` and `status: superseded` into the old note
        and `supersedes` into the new one; search then returns only the newer, and the old is archived (restorable) by the next GC."""
        return await call(lambda s: s.supersede(old, by))

    @mcp.tool(annotations=READ)
    async def get_memory(refs: Annotated[S.Refs, Field(description="Memory ids or note paths.")]) -> list[R.FullNote]:
        """Read memories in full: text, fields, score, outgoing links and backlinks. Changes nothing (reading is not a use: report use with touch_memory)."""
        return await call(lambda s: s.get_memory(refs))

    @mcp.tool(annotations=hints())
    async def touch_memory(ref: Annotated[Ref, Field(description="The memory's id or path.")],
                           boost: Annotated[S.Flag, Field(description="Also raise strength by 0.1.")] = False) -> R.Touched:
        """Reinforce one memory you used: rewrites its frontmatter (last_used = now, use_count + 1). Returns old and new score."""
        return await call(lambda s: s.touch(ref, boost))

    @mcp.tool(annotations=hints())
    async def observe_memory_usage(
        refs: Annotated[S.LooseRefs, Field(description="The memories you used.")],
        context_tags: Annotated[S.Tags | None, Field(description="Tags describing the current conversation's topic.")] = None,
    ) -> R.Observed:
        """Report memories used together in a context: rewrites each one's frontmatter (last_used, use_count); use across unrelated topics strengthens them more."""
        return await call(lambda s: s.observe(refs, context_tags))

    @mcp.tool(annotations=READ)
    async def read_thread(
        ref: Annotated[Ref, Field(description="A memory said in a conversation: its id or path (e.g. a search hit).")],
        before: Annotated[int, Strict(), Field(ge=0, le=50, description="Turns said before it to include.")] = 5,
        after: Annotated[int, Strict(), Field(ge=0, le=50, description="Turns said after it to include.")] = 5,
    ) -> R.Thread:
        """The memories said around one memory in its conversation, in the order they were said, the memory itself marked
        `this`: read the exchange a short search hit ("Yes, I went there yesterday!") belongs to. Changes nothing."""
        return await call(lambda s: s.thread(ref, before, after))

    @mcp.tool(annotations=READ)
    async def review_queue(limit: Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Most memories to list.")] = 20) -> list[R.Note]:
        """Memories about to be forgotten, most urgent first: mention them if relevant so they stay alive. Changes nothing."""
        return await call(lambda s: s.review(limit))

    @mcp.tool(annotations=hints())
    async def promote_memory(
        ref: Annotated[S.Ref | None, Field(description="Memory to promote; omit with auto=true.")] = None,
        auto: Annotated[S.Flag, Field(description="Promote every memory that meets the promotion rule (then give no ref).")] = False,
        dry_run: Annotated[S.Flag, Field(description="Only list what would be promoted (default).")] = True,
    ) -> R.Promoted:
        """Move memories from STM/ to long-term notes in LTM/ (dry run by default). Applied, it moves the files
        and rewrites the [[wikilinks]] that point at them in every note of the vault, the person's own notes included."""
        if ref and auto:
            raise ToolError("invalid: give ref or auto=true, not both")
        if not ref and not auto:
            raise ToolError("invalid: give ref, or auto=true")
        return await call(lambda s: s.promote_all(dry_run) if auto else s.promote(ref, dry_run))

    @mcp.tool(annotations=hints(destructive=True))
    async def gc(
        dry_run: Annotated[S.Flag, Field(description="Only list the candidates (default).")] = True,
        offset: Annotated[Offset, Field(description="Skip this many candidates (pages a dry run only).")] = 0,
        limit: Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Page size of a dry run; with dry_run=false, the most memories archived.")] = 100,
    ) -> R.GcResult:
        """Archive memories below the forget threshold, lowest score first: with dry_run=false moves their notes from STM/ to Archive/
        (restorable with restore_memory; pinned memories are immune; the note open in the person's editor waits, listed under held)."""
        if offset and not dry_run:
            raise ToolError("invalid: offset pages a dry run; gc with dry_run=false archives the `limit` lowest-scoring candidates")
        result = await call(lambda s: s.gc(dry_run=dry_run, limit=None if dry_run else limit))
        result["candidates"] = page(result.get("candidates", []), offset, limit)
        return result

    @mcp.tool(annotations=hints(destructive=True))
    async def archive_memory(
        ref: Annotated[Ref, Field(description="The memory's id or path.")],
        reason: Annotated[S.Reason, Field(description="Why, kept in the archived note's frontmatter.")] = "archived on request",
    ) -> R.Move:
        """Archive one memory now: moves its note from STM/ (or LTM/) to Archive/ (restorable with restore_memory)."""
        def archive(svc: Any) -> Any:
            # the reason lands in the note's frontmatter: one line, no secrets
            check_fields({"reason": check_name("reason", reason, MAX_TITLE_CHARS)})
            return svc.archive(ref, reason)
        return await call(archive)

    @mcp.tool(annotations=hints())
    async def restore_memory(ref: Annotated[Ref, Field(description="The archived memory's id or path.")]) -> R.Move:
        """Bring an archived memory back: moves its note from Archive/ to STM/."""
        return await call(lambda s: s.restore(ref))

    @mcp.tool(annotations=hints(idempotent=True))
    async def create_relation(
        source: Annotated[Ref, Field(description="The memory that gets the link (id or path).")],
        target: Annotated[Ref, Field(description="The note it links to (id or path).")],
        relation_type: Annotated[S.RelationType, Field(description="Frontmatter list to add the link to.")] = "related",
    ) -> R.Relation:
        """Link one memory to another note: adds a [[wikilink]] to the source's frontmatter (a link already there is left as is)."""
        return await call(lambda s: s.relate(source, target, relation_type))

    @mcp.tool(annotations=READ)
    async def read_graph(offset: Offset = 0, limit: Annotated[int, Strict(), Field(ge=1, le=2000, description="Most edges per page.")] = 500) -> R.Graph:
        """The graph of memories and the notes linked with them (paginated edges). Changes nothing."""
        g = await call(lambda s: s.graph())
        return {"nodes": g["nodes"], "edges": cast(R.EdgePage, page(g["edges"], offset, limit))}

    @mcp.tool(annotations=READ)
    async def cluster_memories(threshold: Annotated[S.Threshold, Field(description="Least cosine similarity for two memories to group (0.5-0.99).")] = 0.83) -> list[R.Cluster]:
        """Groups of similar short-term memories, with a suggested action for each. Changes nothing; needs embeddings."""
        return await call(lambda s: s.cluster(threshold))

    @mcp.tool(annotations=hints(destructive=True))
    async def consolidate_memories(
        refs: Annotated[S.Refs, Field(description="Memory ids/paths to merge, or one cluster id.")],
        apply: Annotated[S.Flag, Field(description="Write the merged note and archive the originals.")] = False,
    ) -> R.Consolidated:
        """Merge similar memories into one note (preview unless apply=true). Applied, it writes the
        merged note, archives the originals and rewrites the [[wikilinks]] to them in every note of the vault, the person's own notes included."""
        return await call(lambda s: s.consolidate(refs, apply))

    @mcp.tool(annotations=READ)
    async def read_note(path: Annotated[S.Ref, Field(description="A note's path inside the vault, e.g. 'Projects/Atlas.md'.")]) -> R.NoteText:
        """Read any note of the vault as Markdown (paths outside the vault are refused). Changes nothing."""
        return await call(lambda s: s.read_note(path))

    @mcp.tool(annotations=READ)
    async def status() -> R.Status:
        """Counts by kind and status, problems found, conflicts, index and embedding health. Changes nothing."""
        return await call(lambda s: s.status())

    @mcp.tool(annotations=hints(idempotent=True))
    async def sync(rebuild: Annotated[S.Flag, Field(description="Rebuild the index from scratch.")] = False) -> R.SyncReport:
        """Bring the index up to date with the vault now. Writes only the index (outside the vault), never a note."""
        return await call(lambda s: s.sync(rebuild=rebuild))

    async def resource(fn: Callable[[Any], Any]) -> Any:
        try:
            return await call(fn)
        except ToolError as exc:
            raise ResourceError(str(exc)) from None

    @mcp.resource("memory://{memory_id}", mime_type="text/markdown")
    async def memory_resource(memory_id: str) -> str:
        """One memory's note as Markdown: the file's text, frontmatter included."""
        def text(svc: Any) -> str:
            path = svc.get_memory([memory_id])[0]["path"]
            return svc.read_note(path)["text"]
        return await resource(text)

    @mcp.resource("mnemovault://status", mime_type="application/json")
    async def status_resource() -> str:
        """The vault's memory status."""
        return json.dumps(await resource(lambda s: s.status()), default=str)

    @mcp.resource("mnemovault://review", mime_type="application/json")
    async def review_resource() -> str:
        """The review queue: memories about to be forgotten, most urgent first (the first 20)."""
        return json.dumps(await resource(lambda s: s.review(20)), default=str)

    return mcp
