"""The MCP server: one tool per operation, each a few lines over MemoryService."""

from __future__ import annotations

import json
from typing import Annotated, Any, Callable, Literal, cast

from anyio import to_thread
from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError, ToolError
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.middleware import Middleware
from mcp.shared.exceptions import MCPError
from pydantic import Field, Strict, ValidationError

from vault_sync import limits as L
from vault_sync.errors import InvalidInput, MnemovaultError, NotFound
from vault_sync.limits import MAX_TITLE_CHARS, check_name
from vault_sync.ops.listings import page
from vault_sync.secret_gate import check_fields

from . import mcp_results as R
from . import schemas as S
from .errors import engine_error
from .operations import plain
from .version import version

INSTRUCTIONS = """mnemovault keeps memories as Markdown notes in the user's Obsidian vault.
Save short facts worth remembering with save_memory; search before answering questions about
the user's work with search_memory; "what did I say last week" is recent_memories (newest
first, no query). After using memories, report them with observe_memory_usage so they stay
alive (the one way to say "I used this"). When a new fact replaces an old one (a changed
preference, a moved date), save it with supersedes=[old id]: search then returns only the
current fact (a save answer's may_supersede lists memories it may replace). At the start of
a conversation call recall_context(topic, max_tokens) once instead of many searches. To forget
a memory on request, archive_memory(id) (restorable). Listings are paged: each answer has
`total` and `next_offset` (null at the end); pass offset=next_offset for the next page.
Memories fade unless used; strong ones are promoted to long-term notes, weak ones archived
(never deleted: search_memory(scope="archive") finds them, restore_memory brings one back)."""

# what one answer may hold at the default page sizes (characters): about 10k tokens, a small
# part of an assistant's context (README "MCP answers are paged")
ANSWER_CHARS = 40_000
BRIEF_NOTE = ("path", "id", "kind", "title", "status")
MAX_LINKS = 100  # links and backlinks listed per memory read; the rest counted


Ref = S.Ref
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for a resource that does not exist
INVALID_PARAMS = -32602


class ArgumentErrors(Middleware):
    """Argument errors in our own words: the field named, the input never echoed back
    (fastmcp's default text is pydantic's, which quotes the input)."""

    async def on_call_tool(self, context, call_next):
        args = context.message.arguments or {}
        if context.message.name in ("gc", "promote_memory") and "dry_run" in args:
            # the old flag: a client that coerced "no" to false must not act; say what replaced it
            raise ToolError("invalid: `dry_run` is no longer an argument: this tool previews unless apply=true")
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
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }


READ = hints(read_only=True, idempotent=True)


# moves notes, or rewrites links in notes the call does not name: a client asks the person first
MOVES = hints(destructive=True)


def tool_message(exc: MnemovaultError) -> str:
    """`<code>: <message>`, without repeating a code the message already starts with."""
    return exc.tagged()


def _capped(view: dict, key: str) -> None:
    """A memory's links or backlinks, at most MAX_LINKS, the full count beside them."""
    items = view.get(key)
    if isinstance(items, list) and len(items) > MAX_LINKS:
        view[key] = items[:MAX_LINKS]
        view[f"{key}_total"] = len(items)


def _bounded_status(result: dict) -> dict:
    """status with its lists of problems and conflicts cut to a page; the totals beside them."""
    for key in ("problems", "conflicts", "quarantined", "supersession_cycles"):
        items = result.get(key)
        if isinstance(items, list) and len(items) > MAX_LINKS:
            result[key] = items[:MAX_LINKS]
            result[f"{key}_total"] = len(items)
    return result


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


def build_mcp(get_service: Callable[[], Any]) -> FastMCP:
    mcp = FastMCP("mnemovault", instructions=INSTRUCTIONS, version=version(), strict_input_validation=True)
    mcp.add_middleware(ArgumentErrors())

    async def run(fn: Callable[[Any], Any]) -> Any:
        """`fn(service)` off the event loop, as plain JSON; engine errors raised as they are."""
        svc = get_service()
        try:
            return json.loads(json.dumps(plain(await to_thread.run_sync(lambda: fn(svc))), default=str))
        except OSError as exc:  # a storage fault the engine did not name: say what, not which temp file
            err = engine_error(exc)
            if isinstance(err, MnemovaultError):
                raise err from None
            raise

    async def call(fn: Callable[[Any], Any]) -> Any:
        try:
            return await run(fn)
        except MnemovaultError as exc:
            raise ToolError(tool_message(exc)) from None

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
    ) -> R.Saved:
        """Remember something: save a new short-term memory, one new note in STM/ (an exact duplicate instead
        reinforces the existing note's use count). Secrets are refused. To update a fact, save the new version with
        `supersedes`=[old id]: the old memories get `superseded_by` and `status: superseded` (search then returns only
        the new one)."""
        if conversation is None and said_at is None:
            return await call(lambda s: s.save(text, tags, title, strength, supersedes))
        return await call(lambda s: s.save_said(text, tags, title, strength, conversation, said_at, supersedes))

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
                    "answer) with the same id creates and counts nothing twice."
                ),
            ),
        ] = None,
    ) -> R.SavedBatch:
        """Save many memories in one call (e.g. a whole conversation's turns): writes one note in STM/ per item. Each
        item gets its own result; a refused item (too short, a secret, a supersedes ref that does not resolve) does not
        stop the others. An item with `supersedes` marks the old memories `superseded_by` it and `status: superseded`.
        Each result names its note briefly (path, id, kind, title, status): get_memory reads one in full."""
        result = await call(lambda s: s.save_many(items, conversation, batch_id))
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
    ) -> R.SearchResult:
        """Search memories and notes by meaning and words; each hit carries path, id, title, snippet, score, status,
        created, last_used and tags. Changes nothing. Paged: `next_offset` (null at the end) is the next page's offset.
        Archived (forgotten) memories are found with scope="archive" or include_archived=true, and by any search bounded
        in time; bring one back with restore_memory(hit id). For what was said around a hit, read_thread(hit id);
        for what was saved lately without a query, recent_memories.
        `semantic` is false (with a `notice`) when only full-text search answered, e.g. while the embedding model is
        still loading."""
        if not query.strip():
            raise ToolError(
                "invalid: `query` is empty; search needs words (recent_memories lists memories without a query)"
            )
        if since_days is not None and used_since is not None:
            raise ToolError("invalid: give used_since or since_days (deprecated, the same in days), not both")
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
    ) -> R.NotePage:
        """What was saved lately, newest first, without a query: "what did I say last week" (since="7d"), "what do you
        remember from today". Each memory carries status, created, last_used and tags. Paged with a total. Changes
        nothing."""
        return await call(lambda s: s.recent(limit, offset, since, scope))

    @mcp.tool(annotations=READ)
    async def recall_context(
        topic: Annotated[
            S.Query | None, Field(description="What the conversation is about; omit for a general briefing.")
        ] = None,
        max_tokens: Annotated[
            int, Strict(), Field(ge=40, le=100_000, description="Budget (4 characters a token).")
        ] = 800,
    ) -> R.Briefing:
        """Brief me: a briefing to start a conversation with: current memories on the topic, fading ones worth a
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

    @mcp.tool(annotations=MOVES)
    async def supersede_memory(
        old: Annotated[S.Ref, Field(description="The memory that no longer holds.")],
        by: Annotated[S.Ref, Field(description="The memory that replaces it.")],
    ) -> R.Superseded:
        """Mark an existing memory as superseded by a newer existing one (to update a fact in one step, prefer
        save_memory with supersedes): writes `superseded_by` and `status: superseded` into the old note and `supersedes`
        into the new one, and takes the old note out of the `supersedes` list of a memory that replaced it before;
        search then returns only the newer, and the old is archived (restorable) by the next GC."""
        return await call(lambda s: s.supersede(old, by))

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

    @mcp.tool(annotations=READ)
    async def review_queue(
        limit: Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Most memories in this page.")] = 20,
        offset: Annotated[S.Offset, Field(description="Skip this many (the next page: the answer's next_offset).")] = 0,
    ) -> R.NotePage:
        """Memories about to be forgotten, most urgent first (paged, with a total): mention them if relevant so they
        stay alive. Each carries status, created, last_used and tags. Changes nothing."""
        return await call(lambda s: s.review_page(limit, offset))

    @mcp.tool(annotations=MOVES)
    async def promote_memory(
        ref: Annotated[S.Ref | None, Field(description="Memory to promote; omit with auto=true.")] = None,
        auto: Annotated[
            S.Flag, Field(description="Every memory that meets the promotion rule (then give no ref).")
        ] = False,
        apply: Annotated[
            S.Flag, Field(description="true: move the notes. Anything else (the default): only list what would move.")
        ] = False,
        offset: Annotated[S.Offset, Field(description="Skip this many candidates (pages a preview only).")] = 0,
        limit: Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Page size of a preview.")] = 50,
    ) -> R.Promoted:
        """Move memories from STM/ to long-term notes in LTM/. A preview unless apply=true (candidates paged, with a
        total). Applied, it moves the files and rewrites the [[wikilinks]] that point at them in every note of the
        vault, the person's own notes included."""
        if ref and auto:
            raise ToolError("invalid: give ref or auto=true, not both")
        if not ref and not auto:
            raise ToolError("invalid: give ref, or auto=true")
        if offset and apply:
            raise ToolError("invalid: offset pages a preview; promote with apply=true moves every candidate")
        result = await call(lambda s: s.promote_all(not apply) if auto else s.promote(ref, not apply))
        if "candidates" in result:
            result["candidates"] = page(result["candidates"], offset, limit)
        return result

    @mcp.tool(annotations=MOVES)
    async def gc(
        apply: Annotated[
            S.Flag, Field(description="true: archive the candidates. Anything else (the default): only list them.")
        ] = False,
        offset: Annotated[S.Offset, Field(description="Skip this many candidates (pages a preview only).")] = 0,
        limit: Annotated[
            int,
            Strict(),
            Field(
                ge=1, le=L.MAX_LIMIT, description="Page size of a preview; with apply=true, the most memories archived."
            ),
        ] = 50,
    ) -> R.GcResult:
        """Archive every memory below the forget threshold, lowest score first (a preview unless apply=true): moves
        their notes from STM/ to Archive/ (restorable with restore_memory; pinned memories are immune; the note open in
        the person's editor waits, listed under held). To forget one memory the person names, use archive_memory."""
        if offset and apply:
            raise ToolError(
                "invalid: offset pages a preview; gc with apply=true archives the `limit` lowest-scoring candidates"
            )
        result = await call(lambda s: s.gc(dry_run=not apply, limit=limit if apply else None))
        result["candidates"] = page(result.get("candidates", []), offset, limit)
        return result

    @mcp.tool(annotations=MOVES)
    async def archive_memory(
        ref: Annotated[Ref, Field(description="The memory's id or path.")],
        reason: Annotated[
            S.Reason, Field(description="Why, kept in the archived note's frontmatter.")
        ] = "archived on request",
    ) -> R.Move:
        """Forget a memory the person asks to forget ("forget X": find it with search_memory, then archive its id):
        moves its note from STM/ (or LTM/) to Archive/. Nothing is deleted: restore_memory brings it back."""

        def archive(svc: Any) -> Any:
            # the reason lands in the note's frontmatter: one line, no secrets
            check_fields({"reason": check_name("reason", reason, MAX_TITLE_CHARS)})
            return svc.archive(ref, reason)

        return await call(archive)

    @mcp.tool(annotations=MOVES)
    async def restore_memory(ref: Annotated[Ref, Field(description="The archived memory's id or path.")]) -> R.Move:
        """Bring an archived (forgotten) memory back: moves its note from Archive/ to STM/."""
        return await call(lambda s: s.restore(ref))

    @mcp.tool(annotations=hints(idempotent=True))
    async def create_relation(
        source: Annotated[Ref, Field(description="The memory that gets the link (id or path).")],
        target: Annotated[Ref, Field(description="The note it links to (id or path).")],
        relation_type: Annotated[S.RelationType, Field(description="Frontmatter list to add the link to.")] = "related",
    ) -> R.Relation:
        """Link one memory to another note: adds a [[wikilink]] to the source's frontmatter (a link already
        there is left as is)."""
        return await call(lambda s: s.relate(source, target, relation_type))

    @mcp.tool(annotations=READ)
    async def read_graph(
        offset: Annotated[
            S.Offset,
            Field(description="Skip this many nodes and this many edges (the next page: the larger next_offset)."),
        ] = 0,
        limit: Annotated[
            int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Most nodes and most edges in this page.")
        ] = 50,
    ) -> R.Graph:
        """The graph of memories and the notes linked with them: nodes (path, id, kind, title, status, created,
        last_used) and edges, both paged by the same offset, each with its total. Changes nothing."""
        g = await call(lambda s: s.graph())
        return {
            "nodes": cast(R.NodePage, page(g["nodes"], offset, limit)),
            "edges": cast(R.EdgePage, page(g["edges"], offset, limit)),
        }

    @mcp.tool(annotations=READ)
    async def cluster_memories(
        threshold: Annotated[
            S.Threshold, Field(description="Least cosine similarity for two memories to group (0.5-0.99).")
        ] = 0.83,
        offset: Annotated[
            S.Offset, Field(description="Skip this many groups (the next page: the answer's next_offset).")
        ] = 0,
        limit: Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Most groups in this page.")] = 20,
    ) -> R.ClusterPage:
        """Groups of similar short-term memories, with a suggested action for each (paged, with a total).
        Changes nothing; needs embeddings."""
        return cast(R.ClusterPage, page(await call(lambda s: s.cluster(threshold)), offset, limit))

    @mcp.tool(annotations=MOVES)
    async def consolidate_memories(
        refs: Annotated[S.Refs, Field(description="Memory ids/paths to merge, or one cluster id.")],
        apply: Annotated[
            S.Flag,
            Field(description="true: write the merged note and archive the originals. Anything else: a preview."),
        ] = False,
    ) -> R.Consolidated:
        """Merge similar memories into one note (preview unless apply=true). Applied, it writes the
        merged note, archives the originals and rewrites the [[wikilinks]] to them in every note of the vault, the
        person's own notes included."""
        return await call(lambda s: s.consolidate(refs, apply))

    @mcp.tool(annotations=READ)
    async def read_note(
        path: Annotated[S.Ref, Field(description="A note's path inside the vault, e.g. 'Projects/Atlas.md'.")],
    ) -> R.NoteText:
        """Read any note of the vault as Markdown (paths outside the vault are refused). Changes nothing."""
        return await call(lambda s: s.read_note(path))

    @mcp.tool(annotations=READ)
    async def status() -> R.Status:
        """Counts by kind and status, problems found (the first 100; `*_total` counts them all), conflicts, index and
        embedding health. Changes nothing."""
        return cast(R.Status, _bounded_status(await call(lambda s: s.status())))

    @mcp.tool(annotations=hints(idempotent=True))
    async def sync(
        rebuild: Annotated[S.Flag, Field(description="Rebuild the index from scratch.")] = False,
    ) -> R.SyncReport:
        """Bring the index up to date with the vault now. Writes only the index (outside the vault), never a note."""
        return await call(lambda s: s.sync(rebuild=rebuild))

    async def resource(fn: Callable[[Any], Any]) -> Any:
        """Engine errors as MCP errors: a missing memory is "resource not found", a bad one invalid params."""
        try:
            return await run(fn)
        except NotFound as exc:
            raise MCPError(RESOURCE_NOT_FOUND, tool_message(exc)) from None
        except InvalidInput as exc:
            raise MCPError(INVALID_PARAMS, tool_message(exc)) from None
        except MnemovaultError as exc:
            raise ResourceError(tool_message(exc)) from None

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
        return json.dumps(_bounded_status(await resource(lambda s: s.status())), default=str)

    @mcp.resource("mnemovault://review", mime_type="application/json")
    async def review_resource() -> str:
        """The review queue: memories about to be forgotten, most urgent first (the first 20)."""
        return json.dumps(await resource(lambda s: s.review(20)), default=str)

    return mcp
