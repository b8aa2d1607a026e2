"""The operations on memories: save, find, read and use them (the first of tools/list)."""

from __future__ import annotations

from .. import mcp_results as R
from .. import schemas as S
from .. import tool_args as A
from ..mcp_common import MOVES, hints
from ..mcp_memory_tools import get_memory, recall_context, recent_memories, save_memories, save_memory, search_memory
from .entry import READ, READS, WRITE, Op, Route, Tool

MEMORY: tuple[Op, ...] = (
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
            save_memory,
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
            save_memories,
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
            search_memory,
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
            recent_memories,
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
            recall_context,
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
            body=get_memory,
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
)
