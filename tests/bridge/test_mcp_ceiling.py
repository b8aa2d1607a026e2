"""Every answer has a ceiling: every MCP tool, called through a real MCP client at its largest
arguments on a vault of 2,000 generated notes (plus one very long note of the person's),
answers at most ANSWER_CHARS characters, and a cut listing says how to get the rest.

Embeddings are on in the settings but the model cannot load (its setting names a missing
folder: nothing imports torch); three quarters of the short-term memories get one identical
stored vector, so clustering meets one group of about 600 members, the case that answered
192,000 characters, and the quarter without a vector is counted, never computed."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import numpy as np
import pytest
from conftest import FIXED_NOW, make_service
from fastmcp import Client

from bridge.bench.generate import generate
from bridge.mcp_results import fit
from bridge.mcp_server import build_mcp
from vault_sync.index import vectors as vq
from vault_sync.limits import ANSWER_CHARS
from vault_sync.search.vector_cache import to_blob

pytestmark = pytest.mark.slow
NOTES = 2_000


def _size(result) -> int:
    return sum(len(c.text) for c in result.content if hasattr(c, "text"))


def _answer(result) -> Any:
    sc = result.structured_content
    return sc["result"] if set(sc) == {"result"} else sc


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    root = tmp_path_factory.mktemp("ceiling")
    vault = root / "vault"
    generate(vault, NOTES, FIXED_NOW)
    (vault / "Projects" / "Long.md").write_text(
        "# Long\n\n" + "A paragraph of the person's long note about the Atlas migration. " * 5_000, encoding="utf-8"
    )
    missing_model = str(root / "no-model")
    svc = make_service(vault, embeddings=True, embedding_model=missing_model, index_path=root / "index.sqlite3")
    stm = svc.store.query("SELECT content_hash FROM notes WHERE kind = 'stm' ORDER BY path")
    one = np.ones(8, dtype=np.float32) / np.sqrt(8)
    ready = [(r[0], to_blob(one)) for r in stm[: len(stm) * 3 // 4]]
    vq.store_vectors(svc.store, missing_model, ready)
    yield svc, vault, len(stm) - len(ready)
    svc.close()


def test_every_tool_at_its_largest_arguments_stays_under_the_ceiling(big):
    svc, vault, without = big
    stm = [r[0] for r in svc.store.query("SELECT path FROM notes WHERE kind = 'stm' ORDER BY path")]
    ltm = [r[0] for r in svc.store.query("SELECT path FROM notes WHERE kind = 'ltm' ORDER BY path")]
    sizes: dict[str, int] = {}

    async def go() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with Client(build_mcp(lambda: svc), timeout=600) as c:
            tools = {t.name for t in await c.list_tools()}

            async def run(tool: str, **args: Any) -> Any:
                started = time.perf_counter()
                result = await c.call_tool(tool, args, raise_on_error=False)
                print(f"{tool}: {time.perf_counter() - started:.2f}s, {_size(result)} chars", flush=True)
                assert not result.is_error, (tool, result.content[0].text[:300])
                sizes[tool] = max(sizes.get(tool, 0), _size(result))
                assert _size(result) <= ANSWER_CHARS, f"{tool} answered {_size(result)} characters"
                got[tool] = _answer(result)
                return got[tool]

            await run("status")
            await run("save_memory", text="The garden studio kiln fires at cone six. " * 4_000, tags=["kiln"])
            # 300 items answer well over the ceiling; the most a call may send (2,000) only takes longer to save
            turns = [{"text": f"Turn {i} of the long planning talk about the kiln shelves"} for i in range(300)]
            await run("save_memories", items=turns, conversation="kiln-talk")
            await run("search_memory", query="service deploy database", limit=200)
            await run("recent_memories", limit=1_000, scope="all")
            await run("recall_context", topic="Atlas", max_tokens=100_000)
            await run("get_memory", refs=["Projects/Long.md", *stm[:99]])
            await run("touch_memory", ref=stm[0], boost=True)
            await run("pin_memory", ref=stm[0])
            await run("unpin_memory", ref=stm[0])
            await run("observe_memory_usage", refs=stm[:100])
            thread = await run("recent_memories", limit=1, scope="stm")
            await run("read_thread", ref=thread["items"][0]["path"], before=50, after=50)
            await run("review_queue", limit=1_000)
            await run("promote_memory", auto=True, limit=1_000)
            await run("gc", limit=1_000)
            await run("read_graph", limit=1_000)
            await run("cluster_memories", threshold=0.5, limit=1_000, member_limit=1_000)
            await run("consolidate_memories", refs=stm[100:200])
            await run("read_note", path="Projects/Long.md")
            await run("create_relation", source=stm[1], target=ltm[0])
            await run("supersede_memory", old=stm[2], by=stm[3])
            moved = await run("archive_memory", ref=stm[4])
            await run("restore_memory", ref=moved["to"])
            await run("sync")
            assert tools <= set(got), f"not called: {tools - set(got)}"
        return got

    got = asyncio.run(go())
    print(json.dumps({"ceiling": ANSWER_CHARS, "sizes": sizes}))

    # the cut listings say how to get the rest
    recent = got["recent_memories"]
    search = got["search_memory"]
    assert search["total"] >= len(search["results"]) and "cut" in search or search["next_offset"] is not None
    graph = got["read_graph"]
    assert graph["nodes"]["total"] > NOTES // 2 and graph["nodes"]["next_offset"] < 1_000
    clusters = got["cluster_memories"]
    group = clusters["items"][0]
    assert group["size"] > 500 and len(group["members"]) < group["size"] and "cut" in clusters
    # the quarter left without a vector and the 301 saved above: counted, never computed
    assert clusters["without_vectors"] == without + 301 and "embedding" in clusters["notice"]
    assert got["read_note"]["text_chars"] > ANSWER_CHARS and "cut" in got["read_note"]
    read = got["get_memory"]
    assert len(read) == 100 and read[0]["path"] == "Projects/Long.md"
    assert any("not_read" in (item.get("error") or "") for item in read[1:]) or len(json.dumps(read)) <= ANSWER_CHARS
    assert got["save_memories"]["saved"] == 300 and got["save_memories"]["results_total"] == 300
    assert len(json.dumps(got["recall_context"])) <= ANSWER_CHARS
    del recent


def test_a_cut_page_continues_where_it_ended(big):
    """Page by page with the largest limit, next_offset walks every memory once."""
    svc, _, _ = big

    async def go() -> tuple[int, list[str]]:
        seen: list[str] = []
        offset: int | None = 0
        total = 0
        async with Client(build_mcp(lambda: svc)) as c:
            while offset is not None:
                result = await c.call_tool("recent_memories", {"limit": 1_000, "offset": offset, "scope": "all"})
                assert _size(result) <= ANSWER_CHARS
                page = result.structured_content
                seen += [item["path"] for item in page["items"]]
                total, offset = page["total"], page["next_offset"]
        return total, seen

    total, seen = asyncio.run(go())
    assert len(seen) == len(set(seen)) == total


def test_fit_leaves_a_small_answer_alone_and_cuts_a_large_one():
    small = {"items": [1, 2], "total": 2, "offset": 0, "next_offset": None}
    assert fit(small, 1_000) is small
    page = {"items": [{"t": "x" * 100} for _ in range(100)], "total": 300, "offset": 100, "next_offset": 200}
    cut = fit(page, 2_000)
    assert len(json.dumps(cut)) <= 2_000 and cut["next_offset"] == 100 + len(cut["items"]) and "cut" in cut
    text = fit({"text": "y" * 50_000}, 10_000)
    assert len(json.dumps(text)) <= 10_000 and text["text_chars"] == 50_000
