"""The MCP tools' arguments where they differ from the operation's own model (bridge/schemas.py):
a session's project instead of `project`, `apply` instead of `dry_run`, pages of a whole answer.
Each field's type and description is what the tool's input schema shows (bridge/mcp_tools.py
builds the tool's signature from these fields); a tool whose arguments are the operation's
uses the operation's model itself (bridge/declarations/)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Strict

from . import schemas as S

ALL_PROJECTS = "Every project's memories, not only this project's and shared ones (the default)."
NEXT_PAGE = "Skip this many (the next page: the answer's next_offset)."


class SaveMemory(S.Args):
    text: Annotated[
        S.Text, Field(description="The memory: one self-contained fact, decision or preference, in plain words.")
    ]
    tags: Annotated[S.Tags | None, Field(description="Topic tags, e.g. ['project/atlas', 'database'].")] = None
    title: Annotated[
        S.Title | None, Field(description="Short title; becomes the note's name. Default: the first words.")
    ] = None
    strength: Annotated[S.Strength, Field(description="Importance 0-2 (1 = normal).")] = 1.0
    conversation: Annotated[
        S.Conversation | None,
        Field(description="An id of the conversation this was said in; memories sharing it are one thread."),
    ] = None
    said_at: Annotated[
        S.SaidAt | None, Field(description="When it was said, ISO time (e.g. 2023-05-08T13:56:00Z).")
    ] = None
    supersedes: Annotated[
        S.Refs | None,
        Field(description="Ids or paths of memories this one replaces (an updated fact): they are marked superseded."),
    ] = None
    shared: Annotated[
        S.Flag,
        Field(
            description=(
                "Save it for every project (e.g. the user's preferences); by default it is filed under this "
                "session's project (from the client's roots)."
            )
        ),
    ] = False
    across_projects: Annotated[
        S.Flag, Field(description="Let `supersedes` name another project's memory (refused otherwise).")
    ] = False


class SaveMemories(S.Args):
    items: Annotated[
        list[dict[str, Any]],
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
    ]
    conversation: Annotated[
        str | None, Field(description="The conversation every item belongs to, unless an item names its own.")
    ] = None
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
    ] = None
    shared: Annotated[S.Flag, Field(description="Save them for every project, not under this session's project.")] = (
        False
    )
    across_projects: Annotated[
        S.Flag, Field(description="Let an item's `supersedes` name another project's memory.")
    ] = False


class SearchMemory(S.Args):
    query: Annotated[
        S.Query,
        Field(
            min_length=1,
            description=(
                "What you are looking for, in natural language (not empty: for a listing without a query "
                "use recent_memories)."
            ),
        ),
    ]
    limit: Annotated[S.SearchLimit, Field(description="Most results in this page (1-200).")] = 10
    offset: Annotated[
        S.Offset,
        Field(
            le=199,
            description="Skip this many results (the next page: the answer's next_offset). Search ranks the best 200.",
        ),
    ] = 0
    scope: Annotated[
        S.Scope,
        Field(
            description=(
                "all: memories and the user's notes; stm: short-term memories; ltm: long-term; memories: both; "
                "notes: the user's own notes; archive: only archived (forgotten) memories."
            )
        ),
    ] = "all"
    tags: Annotated[S.Tags | None, Field(description="Only results with all these tags.")] = None
    status: Annotated[
        S.Status | None,
        Field(
            description="Only memories with this status (active, promoted, archived); archived searches the archive."
        ),
    ] = None
    since_days: Annotated[
        S.Days | None, Field(description="Deprecated: the same as used_since='<n>d' (give one of the two).")
    ] = None
    blend_review: Annotated[
        S.Flag, Field(description="Mix in fading memories relevant to the query (marked review).")
    ] = True
    since: Annotated[
        S.When | None, Field(description="Only memories created at or after: ISO date or duration (7d).")
    ] = None
    until: Annotated[S.When | None, Field(description="Only memories created at or before: ISO date or duration.")] = (
        None
    )
    used_since: Annotated[
        S.When | None, Field(description="Only memories last used at or after: ISO date or duration (7d).")
    ] = None
    include_superseded: Annotated[
        S.Flag, Field(description="Also return memories a newer one replaced (each names its successor).")
    ] = False
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
    ] = None
    all_projects: Annotated[S.Flag, Field(description=ALL_PROJECTS)] = False


class RecentMemories(S.Args):
    limit: Annotated[S.Limit, Field(description="Most memories in this page.")] = 20
    offset: Annotated[S.Offset, Field(description=NEXT_PAGE)] = 0
    since: Annotated[
        S.When | None,
        Field(description="Only memories created at or after: ISO date or duration (7d = the last week)."),
    ] = None
    scope: Annotated[
        Literal["memories", "stm", "ltm", "archive", "all"],
        Field(
            description="memories: short- and long-term; stm; ltm; archive: archived (forgotten) ones; all: the three."
        ),
    ] = "memories"
    all_projects: Annotated[S.Flag, Field(description=ALL_PROJECTS)] = False


class RecallContext(S.Args):
    topic: Annotated[
        S.Query | None, Field(description="What the conversation is about; omit for a general briefing.")
    ] = None
    max_tokens: Annotated[int, Strict(), Field(ge=40, le=100_000, description="Budget (4 characters a token).")] = 800
    all_projects: Annotated[S.Flag, Field(description=ALL_PROJECTS)] = False


class ReviewQueue(S.Args):
    limit: Annotated[S.Limit, Field(description="Most memories in this page.")] = 20
    offset: Annotated[S.Offset, Field(description=NEXT_PAGE)] = 0
    all_projects: Annotated[
        S.Flag, Field(description="Every project's, not only this project's and shared ones (the default).")
    ] = False


class PromoteMemory(S.Args):
    ref: Annotated[S.Ref | None, Field(description="Memory to promote; omit with auto=true.")] = None
    auto: Annotated[S.Flag, Field(description="Every memory that meets the promotion rule (then give no ref).")] = False
    apply: Annotated[
        S.Flag, Field(description="true: move the notes. Anything else (the default): only list what would move.")
    ] = False
    offset: Annotated[S.Offset, Field(description="Skip this many candidates (pages a preview only).")] = 0
    limit: Annotated[S.Limit, Field(description="Page size of a preview.")] = 50


class Gc(S.Args):
    apply: Annotated[
        S.Flag, Field(description="true: archive the candidates. Anything else (the default): only list them.")
    ] = False
    offset: Annotated[S.Offset, Field(description="Skip this many candidates (pages a preview only).")] = 0
    limit: Annotated[
        S.Limit, Field(description="Page size of a preview; with apply=true, the most memories archived.")
    ] = 50


class ArchiveMemory(S.Args):
    ref: Annotated[S.Ref, Field(description="The memory's id or path.")]
    reason: Annotated[S.Reason, Field(description="Why, kept in the archived note's frontmatter.")] = (
        "archived on request"
    )


class RestoreMemory(S.Args):
    ref: Annotated[S.Ref, Field(description="The archived memory's id or path.")]


class CreateRelation(S.Args):
    source: Annotated[S.Ref, Field(description="The memory that gets the link (id or path).")]
    target: Annotated[S.Ref, Field(description="The note it links to (id or path).")]
    relation_type: Annotated[S.RelationType, Field(description="Frontmatter list to add the link to.")] = "related"


class ReadGraph(S.Args):
    offset: Annotated[
        S.Offset, Field(description="Skip this many nodes and this many edges (the next page: the larger next_offset).")
    ] = 0
    limit: Annotated[S.Limit, Field(description="Most nodes and most edges in this page.")] = 50


class ClusterMemories(S.Args):
    threshold: Annotated[
        S.Threshold, Field(description="Least cosine similarity for two memories to group (0.5-0.99).")
    ] = 0.83
    offset: Annotated[
        S.Offset, Field(description="Skip this many groups (the next page: the answer's next_offset).")
    ] = 0
    limit: Annotated[S.Limit, Field(description="Most groups in this page.")] = 20
    all_projects: Annotated[
        S.Flag, Field(description="Every project's memories (a group still never spans two projects).")
    ] = False
    member_offset: Annotated[
        S.Offset, Field(description="Skip this many members of each group (the group's members_next_offset).")
    ] = 0
    member_limit: Annotated[S.Limit, Field(description="Most members listed per group.")] = 10


class ConsolidateMemories(S.Args):
    refs: Annotated[S.Refs, Field(description="Memory ids/paths to merge, or one cluster id.")]
    apply: Annotated[
        S.Flag, Field(description="true: write the merged note and archive the originals. Anything else: a preview.")
    ] = False


class Sync(S.Args):
    rebuild: Annotated[S.Flag, Field(description="Rebuild the index from scratch.")] = False
