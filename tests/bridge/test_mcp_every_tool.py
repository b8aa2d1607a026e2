"""Every MCP tool, driven through a real stdio client (the `mnemovault mcp` relay) and a real
HTTP client (fastmcp's Client over streamable HTTP) against one real daemon on a generated
vault of 1,200 notes: every answer within its bound, and every tool's annotations true to
what it changed on disk (read-only: nothing; not destructive: no note moved, no note the call
does not name rewritten)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from daemon_util import QUIET_LIFECYCLE, Daemon, wait_for
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

from bridge.bench.generate import generate
from bridge.mcp_server import ANSWER_CHARS
from vault_sync.dates import utc_now

pytestmark = pytest.mark.slow
NOTES = 1_200


def snapshot(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in vault.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(vault).parts)
    }


def answer(result) -> Any:
    sc = result.structured_content
    if sc is not None:
        return sc["result"] if set(sc) == {"result"} else sc
    return json.loads(result.content[0].text) if not result.is_error else result.content[0].text


def size(result) -> int:
    """What the client receives as the answer, in characters (the text a model reads)."""
    return sum(len(c.text) for c in result.content if hasattr(c, "text"))


def named_paths(args: dict) -> set[str]:
    """Every vault path a call names in its arguments."""
    out: set[str] = set()
    for value in args.values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and v.endswith(".md"):
                out.add(v)
    return out


class Run:
    """One client's session: each call checked against the tool's bound and annotations."""

    def __init__(self, client: Client, vault: Path, tools: dict):
        self.client, self.vault, self.tools = client, vault, tools
        self.called: set[str] = set()
        self.sizes: dict[str, int] = {}

    async def __call__(self, tool: str, ok: bool = True, **args: Any) -> Any:
        before = snapshot(self.vault)
        result = await self.client.call_tool(tool, args, raise_on_error=False)
        after = snapshot(self.vault)
        assert result.is_error is not ok, (tool, args, result.content[0].text[:500])
        self.called.add(tool)
        n = size(result)
        self.sizes[tool] = max(n, self.sizes.get(tool, 0))
        assert n <= ANSWER_CHARS, f"{tool}({args}) answered {n} characters (bound {ANSWER_CHARS})"
        hints = self.tools[tool].annotations
        removed, added = set(before) - set(after), set(after) - set(before)
        changed = {p for p in set(before) & set(after) if before[p] != after[p]}
        if hints.readOnlyHint:
            assert not (removed or added or changed), (tool, removed, added, changed)
        elif not hints.destructiveHint:
            assert not removed, f"{tool} is not marked destructive but moved {removed}"
            assert changed <= named_paths(args), f"{tool} rewrote notes it was not given: {changed - named_paths(args)}"
        return answer(result), (removed, added, changed)


async def drive(run: Run, r: int) -> None:
    """Every tool, on notes of its own (r: 0 for stdio, 1 for HTTP)."""
    status, _ = await run("status")
    assert status["counts"]["note"] > 0
    await run("sync")
    saved, (_, added, _) = await run("save_memory", text=f"The office coffee machine {r} takes oat milk since March")
    mine = saved["note"]["path"]
    assert added == {mine}
    batch, _ = await run(
        "save_memories",
        conversation=f"conversation-{r}",
        items=[
            {"text": f"Shall we move the standup {r} to ten?", "said_at": "2026-11-20T09:00:00Z"},
            {"text": f"Yes, ten works for the standup {r} from Monday", "said_at": "2026-11-20T09:01:00Z"},
            {"text": f"Then the standup {r} room is Blue from Monday", "said_at": "2026-11-20T09:02:00Z"},
        ],
    )
    turns = [item["note"]["path"] for item in batch["results"]]
    thread, _ = await run("read_thread", ref=turns[1])
    assert [t["this"] for t in thread["turns"]] == [False, True, False]

    # listings: one bounded page each, with the total of the whole vault beside it
    hits, _ = await run("search_memory", query="service")
    assert len(hits["results"]) == 10 and hits["next_offset"] == 10
    for hit in hits["results"]:
        assert {"status", "created", "last_used", "tags"} <= set(hit)
    more, _ = await run("search_memory", query="service", offset=10, limit=10)
    assert not {h["path"] for h in more["results"]} & {h["path"] for h in hits["results"]}
    assert "empty" in (await run("search_memory", ok=False, query="  "))[0]
    recent, _ = await run("recent_memories")
    assert recent["total"] > len(recent["items"]) == 20 and recent["items"][0]["path"] in turns + [mine]
    week, _ = await run("recent_memories", since="7d", limit=200)
    assert week["total"] < recent["total"]
    await run("recall_context", topic="standup")
    queue, _ = await run("review_queue")
    assert queue["total"] > len(queue["items"]) == 20
    for item in queue["items"]:
        assert {"status", "created", "last_used", "tags"} <= set(item)
    graph, _ = await run("read_graph")
    assert graph["nodes"]["total"] > 50 and graph["edges"]["total"] > 50 and graph["nodes"]["next_offset"] == 50
    await run("read_note", path=turns[0])
    clusters, _ = await run("cluster_memories")  # grouping needs embeddings; this daemon has none
    assert clusters["total"] == 0 and clusters["next_offset"] is None

    # per-ref reads: a bad ref does not fail the others
    read, _ = await run("get_memory", refs=[mine, "no-such-memory"])
    assert (
        read[0]["path"] == mine
        and "body" in read[0]
        and read[1]["ref"] == "no-such-memory"
        and "not_found" in read[1]["error"]
    )

    # writes to the notes a call names
    await run("touch_memory", ref=mine)
    await run("pin_memory", ref=mine)
    await run("unpin_memory", ref=mine)
    await run("observe_memory_usage", refs=[mine, turns[0]])
    await run("create_relation", source=mine, target=turns[0])

    # previews move nothing, whatever a client sends for `apply` short of true
    for args in ({}, {"apply": False}):
        promote, (removed, added, changed) = await run("promote_memory", auto=True, **args)
        assert promote["dry_run"] is True and not (removed or added or changed)
        gc, (removed, added, changed) = await run("gc", **args)
        assert gc["dry_run"] is True and gc["candidates"]["total"] > 0 and not (removed or added or changed)
    assert "apply" in (await run("gc", ok=False, dry_run=False))[0]
    preview, (removed, added, changed) = await run("consolidate_memories", refs=turns[1:])
    assert preview["applied"] is False and not (removed or added or changed)

    # the destructive ones: they move notes
    await run("supersede_memory", old=turns[0], by=turns[1])
    _, (removed, _, _) = await run("promote_memory", ref=turns[2], apply=True)
    assert removed == {turns[2]}
    archived, (removed, _, _) = await run("archive_memory", ref=mine)
    assert removed == {mine}
    _, (removed, _, _) = await run("restore_memory", ref=archived["to"])
    assert removed == {archived["to"]}
    _, (removed, _, _) = await run("gc", apply=True, limit=3)
    assert len(removed) == 3
    await run("consolidate_memories", refs=[mine, turns[1]], apply=True)


def test_every_tool_over_stdio_and_http(tmp_path):
    vault = tmp_path / "vault"
    generate(vault, NOTES, utc_now())
    # quiet_seconds 0: gc leaves notes written in the last few seconds alone, and on a fast
    # machine the whole generated vault is that young when gc is asked
    d = Daemon(vault, tmp_path / "home", MNEMOVAULT_QUIET_SECONDS=0, **QUIET_LIFECYCLE).start(timeout=180)
    try:
        # the daemon's own first score sweep rewrites notes: let it end before any tool is judged
        assert wait_for(lambda: d.status()["background"]["last_run"], timeout=180)
        relay = StdioTransport(
            command=sys.executable,
            args=["-m", "bridge.cli", "mcp", "--vault", str(vault)],
            env=d.env,
            cwd=str(ROOT),
            keep_alive=False,
        )
        http = StreamableHttpTransport(f"{d.url}/mcp", headers=d.auth)

        async def go() -> list[Run]:
            runs = []
            for r, transport in enumerate((relay, http)):
                async with Client(transport, timeout=120) as c:
                    tools = {t.name: t for t in await c.list_tools()}
                    run = Run(c, vault, tools)
                    await drive(run, r)
                    assert run.called == set(tools), set(tools) - run.called
                    runs.append(run)
            return runs

        runs = asyncio.run(go())
        print(json.dumps({"bound": ANSWER_CHARS, "largest": max(runs[1].sizes.values()), "sizes": runs[1].sizes}))
    finally:
        d.close()
