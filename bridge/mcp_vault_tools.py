"""The MCP tools that keep the vault: review, promote, forget and restore, relations and the graph,
consolidation, notes, status and sync (after mcp_memory_tools.py's in tools/list)."""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import Field, Strict

from vault_sync import limits as L
from vault_sync.limits import MAX_TITLE_CHARS, check_name
from vault_sync.ops.listings import page
from vault_sync.secret_gate import check_fields

from . import mcp_results as R
from . import schemas as S
from .mcp_common import MOVES, READ, Call, bounded_status, hints
from .mcp_project import current

Ref = S.Ref


def register_vault_tools(mcp: FastMCP, call: Call) -> None:
    """Adds the tools on `mcp` in the order tools/list shows them."""

    @mcp.tool(annotations=READ)
    async def review_queue(
        limit: Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Most memories in this page.")] = 20,
        offset: Annotated[S.Offset, Field(description="Skip this many (the next page: the answer's next_offset).")] = 0,
        all_projects: Annotated[
            S.Flag, Field(description="Every project's, not only this project's and shared ones (the default).")
        ] = False,
    ) -> R.NotePage:
        """Memories about to be forgotten, most urgent first (paged, with a total): mention them if relevant so they
        stay alive. Each carries status, created, last_used and tags. Changes nothing."""
        project = current()
        return await call(lambda s: s.review_page(limit, offset, project, all_projects))

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
        """Bring an archived (forgotten) memory back to where it was archived from: from Archive/ to STM/ (active),
        or to LTM/ (still promoted) for a long-term memory; links to it follow."""
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
        all_projects: Annotated[
            S.Flag, Field(description="Every project's memories (a group still never spans two projects).")
        ] = False,
        member_offset: Annotated[
            S.Offset, Field(description="Skip this many members of each group (the group's members_next_offset).")
        ] = 0,
        member_limit: Annotated[
            int, Strict(), Field(ge=1, le=L.MAX_LIMIT, description="Most members listed per group.")
        ] = 10,
    ) -> R.ClusterPage:
        """Groups of similar short-term memories, with a suggested action for each (paged, with a total; each
        group's members paged too: `size` counts them all, `members_next_offset` is the next page). Answers from the
        memories whose embeddings are ready, at once: `without_vectors` counts those still waiting for the
        background backfill. Changes nothing; needs embeddings."""
        project = current()
        ready = await call(lambda s: s.clusters_ready(threshold, project, all_projects))
        for group in ready["clusters"]:
            members = page(group["members"], member_offset, member_limit)
            group["members"] = members["items"]
            group["members_next_offset"] = members["next_offset"]
        answer = page(ready["clusters"], offset, limit)
        answer.update(project=project, all_projects=all_projects, without_vectors=ready["without_vectors"])
        if ready["without_vectors"]:
            answer["notice"] = (
                f"{ready['without_vectors']} short-term memories have no embedding yet (computed in the "
                "background); they join the groups once they have one"
            )
        return cast(R.ClusterPage, answer)

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
        result = bounded_status(await call(lambda s: s.status()))
        result["project"] = current()
        return cast(R.Status, result)

    @mcp.tool(annotations=hints(idempotent=True))
    async def sync(
        rebuild: Annotated[S.Flag, Field(description="Rebuild the index from scratch.")] = False,
    ) -> R.SyncReport:
        """Bring the index up to date with the vault now. Writes only the index (outside the vault), never a note."""
        return await call(lambda s: s.sync(rebuild=rebuild, check=True))
