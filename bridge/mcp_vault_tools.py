"""What the MCP tools that keep the vault (review, promote, forget, relations, the graph, clusters,
status, sync) do beyond calling their facade method: previews paged, `apply` for `dry_run`, the
session's project. Their names, arguments, descriptions and result types are declared in
bridge/declarations/."""

from __future__ import annotations

from typing import Any, cast

from vault_sync.errors import InvalidInput
from vault_sync.limits import MAX_TITLE_CHARS, check_name, page

from . import mcp_results as R
from . import tool_args as A
from .mcp_common import Call, bounded_status
from .schemas import NoArgs


async def review_queue(call: Call, a: A.ReviewQueue, project: str | None) -> Any:
    return await call(lambda s: s.review_page(a.limit, a.offset, project, a.all_projects))


async def promote_memory(call: Call, a: A.PromoteMemory, project: str | None) -> Any:
    if a.ref and a.auto:
        raise InvalidInput("give ref or auto=true, not both")
    if not a.ref and not a.auto:
        raise InvalidInput("give ref, or auto=true")
    if a.offset and a.apply:
        raise InvalidInput("offset pages a preview; promote with apply=true moves every candidate")
    result = await call(lambda s: s.promote_all(not a.apply) if a.auto else s.promote(a.ref, not a.apply))
    if "candidates" in result:
        result["candidates"] = page(result["candidates"], a.offset, a.limit)
    return result


async def gc(call: Call, a: A.Gc, project: str | None) -> Any:
    if a.offset and a.apply:
        raise InvalidInput("offset pages a preview; gc with apply=true archives the `limit` lowest-scoring candidates")
    result = await call(lambda s: s.gc(dry_run=not a.apply, limit=a.limit if a.apply else None))
    result["candidates"] = page(result.get("candidates", []), a.offset, a.limit)
    return result


async def archive_memory(call: Call, a: A.ArchiveMemory, project: str | None) -> Any:
    def archive(svc: Any) -> Any:
        # the reason lands in the note's frontmatter: one line (the engine refuses a secret in it)
        check_name("reason", a.reason, MAX_TITLE_CHARS)
        return svc.archive(a.ref, a.reason)

    return await call(archive)


async def create_relation(call: Call, a: A.CreateRelation, project: str | None) -> Any:
    return await call(lambda s: s.relate(a.source, a.target, a.relation_type))


async def read_graph(call: Call, a: A.ReadGraph, project: str | None) -> R.Graph:
    g = await call(lambda s: s.graph())
    return {
        "nodes": cast(R.NodePage, page(g["nodes"], a.offset, a.limit)),
        "edges": cast(R.EdgePage, page(g["edges"], a.offset, a.limit)),
    }


async def cluster_memories(call: Call, a: A.ClusterMemories, project: str | None) -> R.ClusterPage:
    ready = await call(lambda s: s.clusters_ready(a.threshold, project, a.all_projects))
    for group in ready["clusters"]:
        members = page(group["members"], a.member_offset, a.member_limit)
        group["members"] = members["items"]
        group["members_next_offset"] = members["next_offset"]
    answer = page(ready["clusters"], a.offset, a.limit)
    answer.update(project=project, all_projects=a.all_projects, without_vectors=ready["without_vectors"])
    if ready["without_vectors"]:
        answer["notice"] = (
            f"{ready['without_vectors']} short-term memories have no embedding yet (computed in the "
            "background); they join the groups once they have one"
        )
    return cast(R.ClusterPage, answer)


async def consolidate_memories(call: Call, a: A.ConsolidateMemories, project: str | None) -> Any:
    return await call(lambda s: s.consolidate(a.refs, a.apply))


async def status(call: Call, a: NoArgs, project: str | None) -> R.Status:
    result = bounded_status(await call(lambda s: s.status()))
    result["project"] = project
    return cast(R.Status, result)


async def sync(call: Call, a: A.Sync, project: str | None) -> Any:
    return await call(lambda s: s.sync(rebuild=a.rebuild, check=True))
