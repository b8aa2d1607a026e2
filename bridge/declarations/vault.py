"""The operations that keep the vault: review, promote, forget and restore, relations, the graph,
clusters, notes, status and sync (after the memory tools in tools/list), then those without a tool."""

from __future__ import annotations

from .. import mcp_results as R
from .. import mcp_vault_tools as keep
from .. import schemas as S
from .. import tool_args as A
from ..mcp_common import MOVES, hints
from .entry import INTERNAL, READ, READS, WRITE, Op, Route, Tool

VAULT: tuple[Op, ...] = (
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
