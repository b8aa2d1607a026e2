"""read_thread / GET /api/thread / MemoryService.thread (ops/thread.py): the memories said
around one memory in its conversation, in the order they were said. Real files, a real
index, the MCP in-memory client and a real daemon over HTTP."""

from __future__ import annotations

import asyncio
import sys

import pytest
from conftest import make_service
from fastmcp import Client

from bridge.mcp_server import build_mcp
from vault_sync.errors import InvalidInput, NotFound, WrongState

TURNS = [
    f"Turn {i}: " + text
    for i, text in enumerate(
        [
            "We reached the glassblowing museum.",
            "Was it the one on Murano?",
            "Yes, I went there yesterday!",
            "Did you buy anything?",
            "A blue vase.",
            "Lovely.",
            "See you Tuesday.",
            "Bye!",
        ]
    )
]


def _save(svc, order):
    items = [{"text": TURNS[i], "conversation": "trip", "said_at": f"2023-05-08T10:{i:02d}:00Z"} for i in order]
    paths = {i: r["note"]["path"] for i, r in zip(order, svc.save_many(items)["results"])}
    return [paths[i] for i in range(len(TURNS))]


@pytest.fixture
def chat(empty_vault):
    svc = make_service(empty_vault)
    paths = _save(svc, [5, 2, 7, 0, 3, 1, 6, 4])  # saved out of order: listed as said
    svc.save_many([{"text": "Another chat entirely.", "conversation": "work", "said_at": "2023-05-08T10:03:30Z"}])
    plain = svc.save("A memory said in no conversation")["note"]["path"]
    yield svc, paths, plain
    svc.close()


def test_the_turns_around_a_memory_in_the_order_they_were_said(chat):
    svc, paths, _ = chat
    out = svc.thread(paths[4], before=2, after=1)
    assert out["conversation"] == "trip" and out["path"] == paths[4]
    assert [t["path"] for t in out["turns"]] == paths[2:6]
    assert [t["text"] for t in out["turns"]] == TURNS[2:6]
    assert [t["this"] for t in out["turns"]] == [False, False, True, False]
    assert out["earlier"] == 2 and out["later"] == 2
    assert out["turns"][0]["said_at"] == "2023-05-08T10:02:00Z" and out["turns"][0]["kind"] == "stm"
    first = svc.thread(paths[0])  # five either side by default, cut at the start
    assert [t["path"] for t in first["turns"]] == paths[:6] and first["earlier"] == 0 and first["later"] == 2
    assert [t["path"] for t in svc.thread(paths[7], 0, 0)["turns"]] == [paths[7]]
    whole = svc.thread(svc.store.note(paths[3])["id"], 50, 50)  # by id too
    assert [t["path"] for t in whole["turns"]] == paths  # the other conversation is not in it


def test_an_archived_turn_is_still_part_of_the_thread(chat):
    svc, paths, _ = chat
    moved = svc.archive(paths[3], reason="test")["to"]
    out = svc.thread(paths[2], before=0, after=1)
    assert [(t["path"], t["kind"]) for t in out["turns"]] == [(paths[2], "stm"), (moved, "archive")]


@pytest.mark.parametrize("before, after", [(-1, 0), (51, 0), (0, True), ("3", 0), (2.5, 1)])
def test_bad_counts_are_refused(chat, before, after):
    svc, paths, _ = chat
    with pytest.raises(InvalidInput, match="from 0 to 50"):
        svc.thread(paths[0], before, after)


def test_a_memory_outside_any_conversation_or_an_unknown_ref(chat):
    svc, _, plain = chat
    with pytest.raises(WrongState, match="not said in a conversation"):
        svc.thread(plain)
    with pytest.raises(NotFound):
        svc.thread("STM/nothing here.md")


def test_read_thread_over_mcp(chat):
    svc, paths, plain = chat

    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            tools = {t.name: t for t in await c.list_tools()}
            ok = await c.call_tool("read_thread", {"ref": paths[2], "before": 1, "after": 1})
            bad = await c.call_tool("read_thread", {"ref": plain}, raise_on_error=False)
            return tools["read_thread"], ok, bad

    tool, ok, bad = asyncio.run(go())
    assert tool.annotations.readOnlyHint is True and tool.outputSchema
    assert [t["text"] for t in ok.structured_content["turns"]] == TURNS[1:4]
    assert bad.is_error and "not said in a conversation" in bad.content[0].text


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_get_api_thread_on_a_real_daemon(vault, tmp_path):
    from daemon_util import QUIET_LIFECYCLE, Daemon

    for i, text in enumerate(TURNS[:4]):  # turns written by hand, as a person or another tool might
        (vault / "STM" / f"trip turn {i}.md").write_text(
            f"---\nconversation: trip\nsaid_at: 2023-05-08T10:0{i}:00Z\n---\n{text}\n", encoding="utf-8"
        )
    d = Daemon(vault, tmp_path / "daemon-home", **QUIET_LIFECYCLE)
    try:
        daemon = d.start()
        r = daemon.get("/api/thread", {"ref": "STM/trip turn 2.md", "before": "1", "after": "5"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert [t["path"] for t in body["turns"]] == ["STM/trip turn 1.md", "STM/trip turn 2.md", "STM/trip turn 3.md"]
        assert body["earlier"] == 1 and body["later"] == 0 and body["turns"][1]["this"] is True
        r = daemon.get("/api/thread", {"ref": "STM/Staging runs Postgres 16.md"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "wrong_state"
        r = daemon.get("/api/thread", {"ref": "STM/trip turn 2.md", "before": "many"})
        assert r.status_code in (400, 422) and "before" in r.text
        assert daemon.get("/api/thread", {"ref": "STM/none.md"}).status_code == 404
        r = daemon.post("/api/rpc", {"op": "thread", "args": {"ref": "STM/trip turn 0.md", "before": 0, "after": 1}})
        assert (
            r.status_code == 200 and [t["text"] for t in r.json()["result"]["turns"]] == TURNS[:2]
        )  # the CLI's channel
    finally:
        d.close()


def test_mnemovault_thread_on_the_command_line(chat, empty_vault):
    import json

    from typer.testing import CliRunner

    from bridge.cli import app

    svc, paths, plain = chat
    svc.close()  # the command opens the vault itself
    runner = CliRunner()
    r = runner.invoke(app, ["thread", paths[2], "--before", "1", "--after", "1", "--vault", str(empty_vault), "--json"])
    assert r.exit_code == 0, r.output
    assert [t["path"] for t in json.loads(r.output)["turns"]] == paths[1:4]
    r = runner.invoke(app, ["thread", paths[2], "-b", "1", "-a", "0", "--vault", str(empty_vault)])
    assert r.exit_code == 0 and "> 2023-05-08T10:02:00Z  Turn 2: Yes, I went there yesterday!" in r.output
    assert "(1 earlier)" in r.output and "(5 later)" in r.output
    r = runner.invoke(app, ["thread", plain, "--vault", str(empty_vault)])
    assert r.exit_code != 0 and "not said in a conversation" in r.output
    r = runner.invoke(app, ["thread", paths[2], "--before", "99", "--vault", str(empty_vault)])
    assert r.exit_code != 0 and "before" in r.output
