"""What a client learns from tools/list before it calls anything
(annotations, output schemas, described parameters), checked through fastmcp's in-memory
Client on a temp copy of the sample vault; and the tools added or tightened with it."""

from __future__ import annotations

import asyncio

import jsonschema
import pytest
from conftest import make_service
from fastmcp import Client

from bridge.mcp_server import build_mcp

STAGING = "STM/Staging runs Postgres 16.md"
READ_ONLY = {
    "read_thread",
    "search_memory",
    "get_memory",
    "review_queue",
    "status",
    "read_graph",
    "read_note",
    "cluster_memories",
    "recall_context",
    "recent_memories",
}
# every tool that moves a note or rewrites links in a note the call does not name
DESTRUCTIVE = {"gc", "consolidate_memories", "archive_memory", "promote_memory", "supersede_memory", "restore_memory"}


@pytest.fixture
def svc(vault):
    service = make_service(vault)
    yield service
    service.close()


def tools_and_results(svc, calls):
    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            tools = {t.name: t for t in await c.list_tools()}
            results = {name: await c.call_tool(name, args, raise_on_error=False) for name, args in calls}
        return tools, results

    return asyncio.run(go())


def test_every_tool_is_annotated_typed_and_described(svc):
    tools, _ = tools_and_results(svc, [])
    assert "archive_memory" in tools
    for name, t in tools.items():
        a = t.annotations
        assert a is not None, f"{name} has no annotations"
        assert a.readOnlyHint is (name in READ_ONLY), name
        assert a.openWorldHint is False, name
        if name in READ_ONLY:
            assert a.idempotentHint is True, name
        else:
            assert a.destructiveHint is (name in DESTRUCTIVE), name
        out = t.outputSchema
        assert out and out.get("type") == "object" and out.get("properties"), f"{name} has no output schema"
        # typed: a result's fields are named, not a free object
        assert out.get("additionalProperties") is not True or out.get("required"), name
        for param, schema in t.inputSchema.get("properties", {}).items():
            assert schema.get("description"), f"{name}.{param} has no description"
    # what changes in the person's own notes is said where it happens
    for name in ("promote_memory", "consolidate_memories"):
        assert "wikilinks" in tools[name].description and "own notes" in tools[name].description


def test_results_validate_against_their_schemas(svc):
    calls = [
        ("status", {}),
        ("search_memory", {"query": "postgres"}),
        ("get_memory", {"refs": [STAGING]}),
        ("review_queue", {}),
        ("read_graph", {"limit": 3}),
        ("read_note", {"path": STAGING}),
        ("promote_memory", {"auto": True}),
        ("gc", {}),
        ("touch_memory", {"ref": STAGING}),
        ("create_relation", {"source": STAGING, "target": "STM/Atlas search reindex takes 40 minutes.md"}),
        ("save_memory", {"text": "The build server listens on port 8123 since Monday"}),
        ("sync", {}),
    ]
    tools, results = tools_and_results(svc, calls)
    for name, _ in calls:
        r = results[name]
        assert not r.is_error, (name, r.content)
        jsonschema.validate(r.structured_content, tools[name].outputSchema)
    assert results["status"].structured_content["counts"]["stm"] == 31
    # the schema is not a formality: a wrong shape fails it
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"counts": {"stm": 31}}, tools["status"].outputSchema)


def test_archive_memory_moves_the_note_and_restore_brings_it_back(svc, vault):
    before = (vault / STAGING).read_bytes()
    calls = [
        ("archive_memory", {"ref": STAGING, "reason": "superseded by the Postgres 17 move"}),
        ("get_memory", {"refs": ["Archive/Staging runs Postgres 16.md"]}),
    ]
    _, results = tools_and_results(svc, calls)
    moved = results["archive_memory"].structured_content
    assert moved["from"] == STAGING and moved["to"] == "Archive/Staging runs Postgres 16.md"
    assert not (vault / STAGING).exists() and (vault / moved["to"]).is_file()
    assert "superseded by the Postgres 17 move" in (vault / moved["to"]).read_text(encoding="utf-8")
    assert results["get_memory"].structured_content["result"][0]["status"] == "archived"
    _, back = tools_and_results(svc, [("restore_memory", {"ref": moved["to"]})])
    assert back["restore_memory"].structured_content["to"] == STAGING
    # the body came back untouched (only engine-owned frontmatter keys changed on the way)
    assert before.split(b"\n---\n", 1)[1] == (vault / STAGING).read_bytes().split(b"\n---\n", 1)[1]


@pytest.mark.parametrize(
    "reason, why",
    [("two\nlines", "line break"), ("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "refused")],
)
def test_archive_memory_refuses_a_bad_reason_and_moves_nothing(svc, vault, reason, why):
    _, results = tools_and_results(svc, [("archive_memory", {"ref": STAGING, "reason": reason})])
    r = results["archive_memory"]
    assert r.is_error and "sk-ant" not in r.content[0].text
    assert (vault / STAGING).is_file() and not (vault / "Archive/Staging runs Postgres 16.md").exists()


def test_contradictory_arguments_are_refused(svc, vault):
    calls = [("promote_memory", {"ref": STAGING, "auto": True, "apply": True}), ("gc", {"apply": True, "offset": 5})]
    _, results = tools_and_results(svc, calls)
    both = results["promote_memory"]
    assert both.is_error and "not both" in both.content[0].text
    assert (vault / STAGING).is_file() and not (vault / "LTM").joinpath("Staging runs Postgres 16.md").exists()
    assert results["gc"].is_error
