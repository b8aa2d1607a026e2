"""What a person asks, and the tool whose description an assistant must find for it: each
question's tool names the intent in its own description, and the server instructions point
the same way (one way to report use, archive to forget)."""

from __future__ import annotations

import asyncio

import pytest
from fastmcp import Client

from bridge.mcp_server import INSTRUCTIONS, build_mcp

# (what a person says, the tool, words its description must carry for that intent)
QUESTIONS = [
    ("remember that I take oat milk", "save_memory", ["remember", "save"]),
    ("I changed my mind: it is soy milk now", "save_memory", ["update", "supersedes"]),
    ("what did I say last week?", "recent_memories", ["what did i say last week", "since"]),
    ("brief me on project Atlas", "recall_context", ["brief me", "topic"]),
    ("forget the note about the old office", "archive_memory", ["forget", "restore_memory"]),
    ("what was said around this?", "read_thread", ["what was said around this", "conversation"]),
    ("what do you know about Postgres?", "search_memory", ["search"]),
    ("bring back what you forgot about the bike", "restore_memory", ["forgotten", "archived"]),
]


@pytest.fixture(scope="module")
def tools():
    async def go():
        async with Client(build_mcp(lambda: None)) as c:
            return {t.name: (t.description or "").lower() for t in await c.list_tools()}

    return asyncio.run(go())


@pytest.mark.parametrize("question, tool, words", QUESTIONS, ids=[q for q, _, _ in QUESTIONS])
def test_the_question_leads_to_its_tool(tools, question, tool, words):
    for word in words:
        assert word in tools[tool], f"{question!r}: {tool}'s description lacks {word!r}"


def test_forget_leads_to_archive_and_nothing_else_claims_it(tools):
    claims = {name for name, text in tools.items() if "forget " in text and "archive_memory" not in name}
    # gc forgets by score and says so, pointing at archive_memory for one memory the person names
    assert claims <= {"gc"} and "archive_memory" in tools["gc"]
    assert "archive_memory" in INSTRUCTIONS and "forget" in INSTRUCTIONS


def test_one_way_to_report_use(tools):
    # the instructions, get_memory and touch_memory all name observe_memory_usage as the way
    assert "observe_memory_usage" in INSTRUCTIONS and "touch_memory" not in INSTRUCTIONS
    assert "observe_memory_usage" in tools["get_memory"] and "touch_memory" not in tools["get_memory"]
    assert "observe_memory_usage" in tools["touch_memory"] and "i used this" in tools["observe_memory_usage"]


def test_query_less_listing_is_named_where_an_empty_query_fails(tools):
    assert "recent_memories" in tools["search_memory"] and "recent_memories" in INSTRUCTIONS
