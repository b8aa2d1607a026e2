"""Every operation the front ends offer, declared once: its facade method (vault_sync/service.py)
and whether it reads or writes (the facade's mark, checked by tests/bridge/test_declarations.py),
its argument model, and how each front end shows it:

- `rpc`: the op is in `/api/rpc` and the CLI's `call` (bridge/operations.py) with `args`;
- `tool`: an MCP tool (bridge/mcp_tools.py builds it): name, description, annotations, result
  type (bridge/mcp_results.py), its arguments (`args` unless the tool's own, bridge/tool_args.py)
  and a body when it does more than call the method (bridge/mcp_memory_tools.py, mcp_vault_tools.py);
- `routes`: the HTTP routes of the bridge (bridge/http_app.py builds them; docs/bridge-api.md).

The order is the order of tools/list. The CLI's commands and renderers stay in bridge/cli_*.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal

from . import mcp_memory_tools as memory
from . import mcp_results as R
from . import mcp_vault_tools as keep
from . import schemas as S
from . import tool_args as A
from .mcp_common import MOVES, Call, hints

# the facade's marks (vault_sync/facade_marks.py): tests/bridge/test_declarations.py checks each entry's
READ, WRITE, INTERNAL = "read", "write", "internal"
READS = hints(read_only=True, idempotent=True)
Body = Callable[[Call, Any, "str | None"], Awaitable[Any]]  # (call, parsed arguments, session project) -> answer


@dataclass(frozen=True)
class Tool:
    name: str
    description: str  # a docstring: cleaned as one (inspect.cleandoc) before tools/list shows it
    result: Any  # the answer's type: the tool's output schema
    annotations: dict[str, bool]
    args: type[S.Args] | None = None  # None: the operation's own model
    body: Body | None = None  # None: the facade method called with the arguments as given


@dataclass(frozen=True)
class Route:
    path: str
    method: Literal["GET", "POST"]
    args: type[S.Args] | None = None  # None: the operation's own model (GET: from the query string)
    run: Callable[[Any, Any], Any] | None = None  # (facade, parsed args) -> answer; None: the method


@dataclass(frozen=True)
class Op:
    method: str  # the facade method; also the op's name in /api/rpc
    kind: str  # READ or WRITE, as the facade marks the method (INTERNAL: a report, not an operation)
    args: type[S.Args] | None = None  # the facade method's keyword arguments
    rpc: bool = False
    tool: Tool | None = None
    routes: tuple[Route, ...] = ()


def _plain(method: str) -> Callable[[Any, Any], Any]:
    return lambda svc, a: getattr(svc, method)(**S.kwargs(a))


TABLE: tuple[Op, ...] = (
    Op(
        "save",
        WRITE,
        S.SaveArgs,
        rpc=True,
        tool=Tool(
            "save_memory",
            """
        Remember something: save a new short-term memory, one new note in STM/. A fact already held (the same
        text, or the same fact in other words with no detail added or changed) instead reinforces that memory's use
        count: the answer says "reinforced <id> (similarity x)". Secrets are refused. To update a fact, save the new
        version with `supersedes`=[old id]: the old memories get `superseded_by` and `status: superseded` (search
        then returns only the new one). The note is filed under this session's project (`project` key) unless
        shared=true.""",
            R.Saved,
            hints(),
            A.SaveMemory,
            memory.save_memory,
        ),
        routes=(Route("/api/save", "POST", S.CaptureBody, lambda svc, a: svc.save(a.text, a.tags)),),
    ),
    Op(
        "save_many",
        WRITE,
        tool=Tool(
            "save_memories",
            """
        Save many memories in one call (e.g. a whole conversation's turns): writes one note in STM/ per item. Each
        item gets its own result; a refused item (too short, a secret, a supersedes ref that does not resolve) does not
        stop the others. An item repeating a fact already held reinforces its memory, as in save_memory. An item with
        `supersedes` marks the old memories `superseded_by` it and `status: superseded`.
        Each result names its note briefly (path, id, kind, title, status): get_memory reads one in full.""",
            R.SavedBatch,
            hints(),
            A.SaveMemories,
            memory.save_memories,
        ),
    ),
    Op(
        "search_page",
        READ,
        tool=Tool(
            "search_memory",
            """
        Search memories and notes by meaning and words; each hit carries path, id, title, snippet, score, status,
        created, last_used and tags. Changes nothing. Paged: `next_offset` (null at the end) is the next page's offset.
        Archived (forgotten) memories are found with scope="archive" or include_archived=true, and by any search bounded
        in time; bring one back with restore_memory(hit id). For what was said around a hit, read_thread(hit id);
        for what was saved lately without a query, recent_memories.
        `semantic` is false (with a `notice`) when only full-text search answered, e.g. while the embedding model is
        still loading. Scoped to this session's project plus shared memories (the answer's `project`; each hit's
        `project`, null when shared) unless all_projects=true.""",
            R.SearchResult,
            READS,
            A.SearchMemory,
            memory.search_memory,
        ),
        routes=(
            Route(
                "/api/search",
                "GET",
                S.SearchQuery,
                lambda svc, a: svc.search_page(
                    a.q,
                    a.limit,
                    a.offset,
                    scope=a.scope,
                    since=a.since,
                    until=a.until,
                    used_since=a.used_since,
                    include_superseded=a.include_superseded,
                    include_archived=a.include_archived,
                    project=a.project,
                    all_projects=a.project is None,  # the person's vault: every project unless one is asked for
                ),
            ),
        ),
    ),
    Op(
        "recent",
        READ,
        S.RecentArgs,
        rpc=True,
        tool=Tool(
            "recent_memories",
            """
        What was saved lately, newest first, without a query: "what did I say last week" (since="7d"), "what do you
        remember from today". Each memory carries status, created, last_used and tags. Paged with a total. Changes
        nothing.""",
            R.NotePage,
            READS,
            A.RecentMemories,
            memory.recent_memories,
        ),
        routes=(
            Route(
                "/api/recent",
                "GET",
                run=lambda svc, a: svc.recent(
                    a.limit, a.offset, a.since, a.scope, a.project, a.all_projects or a.project is None
                ),
            ),
        ),
    ),
    Op(
        "brief",
        READ,
        S.BriefArgs,
        rpc=True,
        tool=Tool(
            "recall_context",
            """
        Brief me: a briefing to start a conversation with: current memories on the topic, fading ones worth a
        mention, the strongest; the whole answer packed into the budget (at most 10,000 tokens: the ceiling of any
        answer), ending with what was left out. Changes nothing.""",
            R.Briefing,
            READS,
            A.RecallContext,
            memory.recall_context,
        ),
    ),
    Op(
        "supersede",
        WRITE,
        S.SupersedeArgs,
        rpc=True,
        tool=Tool(
            "supersede_memory",
            """
        Mark an existing memory as superseded by a newer existing one (to update a fact in one step, prefer
        save_memory with supersedes): writes `superseded_by` and `status: superseded` into the old note and `supersedes`
        into the new one, and takes the old note out of the `supersedes` list of a memory that replaced it before;
        search then returns only the newer, and the old is archived (restorable) by the next GC.""",
            R.Superseded,
            MOVES,
        ),
    ),
    Op(
        "get_memory",
        READ,
        S.RefsArgs,
        rpc=True,
        tool=Tool(
            "get_memory",
            """
        Read memories in full: text, fields, score, outgoing links and backlinks (the first 100 of each; `*_total`
        counts the rest). One result per ref, in order: a ref that does not resolve gets {ref, error} and the others
        are still read. Changes nothing; reading is not a use: after using memories, report them with
        observe_memory_usage.""",
            list[R.ReadItem],
            READS,
            body=memory.get_memory,
        ),
    ),
    Op(
        "touch",
        WRITE,
        S.TouchArgs,
        rpc=True,
        tool=Tool(
            "touch_memory",
            """
        Reinforce one memory, optionally raising its strength (boost). To report memories you used, call
        observe_memory_usage instead: it is the one way to say "I used this". Rewrites the memory's frontmatter
        (last_used = now, use_count + 1). Returns old and new score.""",
            R.Touched,
            hints(),
        ),
        routes=(Route("/api/touch", "POST"),),
    ),
    Op(
        "pin",
        WRITE,
        S.RefArgs,
        rpc=True,
        tool=Tool(
            "pin_memory",
            """
        Pin a memory the person wants kept as it is ("always remember X"): it keeps its score (the one of its
        last use), is never queued for review, never archived by GC and promoted only when asked. Writes `pinned:
        true` into its frontmatter; pinning a pinned memory changes nothing (changed: false).""",
            R.Pinned,
            hints(idempotent=True),
        ),
        routes=(Route("/api/pin", "POST"),),
    ),
    Op(
        "unpin",
        WRITE,
        S.UnpinArgs,
        rpc=True,
        tool=Tool(
            "unpin_memory",
            """
        Unpin a memory: removes `pinned` from its frontmatter; it ages from its last use again (one long unused
        can be due for GC at once, which then archives it). Unpinning an unpinned memory changes
        nothing.""",
            R.Pinned,
            hints(idempotent=True),
            S.RefArgs,  # pin's `prior` (its exact undo) is the plugin's, not an assistant's
        ),
        routes=(Route("/api/unpin", "POST"),),
    ),
    Op(
        "observe",
        WRITE,
        S.ObserveArgs,
        rpc=True,
        tool=Tool(
            "observe_memory_usage",
            """
        Say "I used this": the one way to report memories you used after answering with them (keeps them alive).
        Rewrites each one's frontmatter (last_used, use_count); use across unrelated topics strengthens them more.
        A bad ref is listed under errors; the others are still counted.""",
            R.Observed,
            hints(),
        ),
    ),
    Op(
        "thread",
        READ,
        S.ThreadArgs,
        rpc=True,
        tool=Tool(
            "read_thread",
            """
        What was said around this: the memories said around one memory in its conversation, in the order they were
        said, the memory itself marked `this`: read the exchange a short search hit ("Yes, I went there yesterday!")
        belongs to. Changes nothing.""",
            R.Thread,
            READS,
        ),
        routes=(Route("/api/thread", "GET"),),
    ),
    Op(
        "review_page",
        READ,
        tool=Tool(
            "review_queue",
            """
        Memories about to be forgotten, most urgent first (paged, with a total): mention them if relevant so they
        stay alive. Each carries status, created, last_used and tags. Changes nothing.""",
            R.NotePage,
            READS,
            A.ReviewQueue,
            keep.review_queue,
        ),
        routes=(
            Route(
                "/api/review",
                "GET",
                S.ReviewQuery,
                lambda svc, a: {
                    **svc.review_page(a.limit, a.offset, a.project, a.project is None),
                    "next_due": svc.next_review_due(),
                },
            ),
        ),
    ),
    Op(
        "promote",
        WRITE,
        S.PromoteArgs,
        rpc=True,
        tool=Tool(
            "promote_memory",
            """
        Move memories from STM/ to long-term notes in LTM/. A preview unless apply=true (candidates paged, with a
        total). Applied, it moves the files and rewrites the [[wikilinks]] that point at them in every note of the
        vault, the person's own notes included.""",
            R.Promoted,
            MOVES,
            A.PromoteMemory,
            keep.promote_memory,  # promote_all too (auto=true)
        ),
        routes=(
            Route(
                "/api/promote",
                "POST",
                S.PromoteBody,
                lambda svc, a: svc.promote_all(a.dry_run) if a.auto else svc.promote(a.ref, a.dry_run),
            ),
        ),
    ),
    Op("promote_all", WRITE, S.PromoteAllArgs, rpc=True),
    Op(
        "gc",
        WRITE,
        S.GcArgs,
        rpc=True,
        tool=Tool(
            "gc",
            """
        Archive every memory below the forget threshold, lowest score first (a preview unless apply=true): moves
        their notes from STM/ to Archive/ (restorable with restore_memory; pinned memories are immune; the note open in
        the person's editor waits, listed under held). To forget one memory the person names, use archive_memory.""",
            R.GcResult,
            MOVES,
            A.Gc,
            keep.gc,
        ),
        routes=(Route("/api/gc", "POST", S.GcBody, lambda svc, a: svc.gc(dry_run=a.dry_run, limit=a.limit)),),
    ),
    Op(
        "archive",
        WRITE,
        S.RefArgs,
        rpc=True,
        tool=Tool(
            "archive_memory",
            """
        Forget a memory the person asks to forget ("forget X": find it with search_memory, then archive its id):
        moves its note from STM/ (or LTM/) to Archive/. Nothing is deleted: restore_memory brings it back.""",
            R.Move,
            MOVES,
            A.ArchiveMemory,
            keep.archive_memory,
        ),
        routes=(Route("/api/archive", "POST", run=lambda svc, a: {"archived": [svc.archive(a.ref)]}),),
    ),
    Op(
        "restore",
        WRITE,
        S.RestoreArgs,
        rpc=True,
        tool=Tool(
            "restore_memory",
            """
        Bring an archived (forgotten) memory back to where it was archived from: from Archive/ to STM/ (active),
        or to LTM/ (still promoted) for a long-term memory; links to it follow.""",
            R.Move,
            MOVES,
            A.RestoreMemory,
        ),
        routes=(Route("/api/restore", "POST", run=lambda svc, a: {"restored": [svc.restore(**S.kwargs(a))]}),),
    ),
    Op(
        "relate",
        WRITE,
        S.RelateArgs,
        rpc=True,
        tool=Tool(
            "create_relation",
            """
        Link one memory to another note: adds a [[wikilink]] to the source's frontmatter (a link already
        there is left as is).""",
            R.Relation,
            hints(idempotent=True),
            A.CreateRelation,
            keep.create_relation,
        ),
    ),
    Op(
        "graph",
        READ,
        S.GraphArgs,
        rpc=True,
        tool=Tool(
            "read_graph",
            """
        The graph of memories and the notes linked with them: nodes (path, id, kind, title, status, created,
        last_used) and edges, both paged by the same offset, each with its total. Changes nothing.""",
            R.Graph,
            READS,
            A.ReadGraph,
            keep.read_graph,
        ),
    ),
    Op(
        "clusters_ready",
        READ,
        tool=Tool(
            "cluster_memories",
            """
        Groups of similar short-term memories, with a suggested action for each (paged, with a total; each
        group's members paged too: `size` counts them all, `members_next_offset` is the next page). Answers from the
        memories whose embeddings are ready, at once: `without_vectors` counts those still waiting for the
        background backfill. Changes nothing; needs embeddings.""",
            R.ClusterPage,
            READS,
            A.ClusterMemories,
            keep.cluster_memories,
        ),
    ),
    Op(
        "consolidate",
        WRITE,
        S.ConsolidateArgs,
        rpc=True,
        tool=Tool(
            "consolidate_memories",
            """
        Merge similar memories into one note (preview unless apply=true). Applied, it writes the
        merged note, archives the originals and rewrites the [[wikilinks]] to them in every note of the vault, the
        person's own notes included.""",
            R.Consolidated,
            MOVES,
            A.ConsolidateMemories,
            keep.consolidate_memories,
        ),
    ),
    Op(
        "read_note",
        READ,
        S.PathArgs,
        rpc=True,
        tool=Tool(
            "read_note",
            """
        Read any note of the vault as Markdown (paths outside the vault are refused). Changes nothing.""",
            R.NoteText,
            READS,
        ),
    ),
    Op(
        "status",
        READ,
        S.NoArgs,
        rpc=True,
        tool=Tool(
            "status",
            """
        Counts by kind and status, problems found (the first 100; `*_total` counts them all), conflicts, index and
        embedding health. Changes nothing.""",
            R.Status,
            READS,
            body=keep.status,
        ),
        # GET /api/status adds the daemon's own facts: written in http_app.py
    ),
    Op(
        "sync",
        READ,
        tool=Tool(
            "sync",
            """
        Bring the index up to date with the vault now. Writes only the index (outside the vault), never a note.""",
            R.SyncReport,
            hints(idempotent=True),
            A.Sync,
            keep.sync,
        ),
        routes=(Route("/api/sync", "POST", S.NoArgs, lambda svc, a: svc.sync(check=True)),),
    ),
    # -- no MCP tool --
    Op("search", READ, S.SearchArgs, rpc=True),
    Op("review", READ, S.ReviewArgs, rpc=True),
    Op("cluster", READ, S.ClusterArgs, rpc=True),
    Op("sweep", WRITE, S.SweepArgs, rpc=True),
    Op(
        "note",
        READ,
        S.RefArgs,
        rpc=True,
        routes=(Route("/api/note", "GET", S.PathArgs, lambda svc, a: svc.note(a.path)),),
    ),
    Op("conflicts", READ, S.NoArgs, rpc=True),
    Op("resolve_conflict", WRITE, S.PathArgs, rpc=True),
    Op("editing", INTERNAL, S.EditingArgs, rpc=True, routes=(Route("/api/editing", "POST"),)),
    Op("dangling", READ, S.DanglingArgs, rpc=True),
    Op("review_memory", WRITE, S.ReviewMemoryArgs, rpc=True, routes=(Route("/api/grade", "POST"),)),
    Op("undo_review", WRITE, S.UndoReviewArgs, rpc=True, routes=(Route("/api/ungrade", "POST"),)),
    Op(
        "related",
        WRITE,
        routes=(Route("/api/related", "GET", S.RelatedQuery, lambda svc, a: svc.related(a.path, a.limit)),),
    ),
)

# public facade operations no front end declares here, and why
NOT_DECLARED = {
    "embedding_status": "part of status (the CLI's `status` prints it)",
    "dangling_links": "part of status; `dangling` pages them",
    "recover": "the daemon's start, before it serves",
    "run_lifecycle": "the daemon's schedule",
    "settle_conflicts": "the daemon's lease holder",
    "next_review_due": "part of GET /api/review",
    "create_memory": "the bench and the tests build vaults with it",
    "import_memories": "the CLI's `import` (a file on this machine)",
    "export": "the CLI's `export` (a stream of lines)",
}

RPC_ARGS: dict[str, type[S.Args]] = {op.method: op.args for op in TABLE if op.rpc and op.args is not None}


def rpc_args(op: Any, args: Any) -> dict[str, Any]:
    """The keyword arguments for MemoryService.<op>, validated; InvalidInput otherwise."""
    return S.checked_args(RPC_ARGS, op, args)


def route_run(op: Op, route: Route) -> tuple[type[S.Args], Callable[[Any, Any], Any]]:
    """A route's model and what it runs: the op's own unless the route says otherwise."""
    model = route.args or op.args
    if model is None:
        raise TypeError(f"{route.path} declares no argument model")
    return model, route.run or _plain(op.method)
