"""Supersession as links: save --supersedes, supersede, by hand in a note, chains,
cycles, GC and restore, and search returning what holds now."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from conftest import FIXED_NOW, assert_index_matches_rebuild, make_service
from typer.testing import CliRunner

from bridge.cli import app
from vault_sync.errors import InvalidInput, SupersessionCycle

OLD_TEXT = "The user prefers Python for backend services and scripts"
NEW_TEXT = "The user now prefers Go for backend services instead of Python"


@pytest.fixture
def svc(empty_vault):
    s = make_service(empty_vault)
    yield s
    s.close()


def paths(result) -> list[str]:
    return [r["path"] for r in result["results"]]


def test_save_with_supersedes_writes_links_both_ways_and_keeps_the_old_text(svc, empty_vault):
    old = svc.save(OLD_TEXT, title="Prefers Python")["note"]
    before = (empty_vault / old["path"]).read_text()
    new = svc.save(NEW_TEXT, title="Prefers Go", supersedes=[old["id"]])
    assert new["superseded"] == [old["path"]]
    new_text = (empty_vault / new["note"]["path"]).read_text()
    assert "supersedes:\n  - '[[Prefers Python]]'" in new_text or 'supersedes:\n  - "[[Prefers Python]]"' in new_text
    old_text = (empty_vault / old["path"]).read_text()
    assert "superseded_by:" in old_text and "[[Prefers Go]]" in old_text
    assert "status: superseded" in old_text
    assert old_text.split("---", 2)[2] == before.split("---", 2)[2]  # the text is kept byte for byte
    # surgical: only status and the new key changed in the old note's frontmatter
    changed = set(old_text.splitlines()) ^ set(before.splitlines())
    assert all(line.startswith(("status:", "superseded_by:")) for line in changed), changed


def test_default_search_returns_only_the_current_fact(svc):
    old = svc.save(OLD_TEXT, title="Prefers Python")["note"]
    assert paths(svc.search("backend language python"))[0] == old["path"]
    new = svc.save(NEW_TEXT, title="Prefers Go", supersedes=[old["path"]])["note"]
    found = paths(svc.search("which language for backend services python go"))
    assert found[0] == new["path"] and old["path"] not in found
    shown = svc.search("backend services python", include_superseded=True)["results"]
    by_path = {r["path"]: r for r in shown}
    assert by_path[old["path"]]["superseded_by"] == new["path"]
    assert "superseded_by" not in by_path[new["path"]]
    assert old["path"] not in [v["path"] for v in svc.review(200)]


def test_chain_resolves_to_newest_and_get_memory_shows_history_oldest_first(svc):
    a = svc.save("The office is in Lisbon on the third floor", title="Office A")["note"]
    b = svc.save("The office moved to Porto near the station", title="Office B", supersedes=[a["id"]])["note"]
    c = svc.save("The office is now in Madrid by the park", title="Office C")["note"]
    svc.supersede(b["id"], c["id"])
    [mem] = svc.get_memory([b["id"]])
    assert mem["history"]["chain"] == [a["path"], b["path"], c["path"]]
    assert mem["history"]["current"] == c["path"] and mem["history"]["cycle"] is False
    shown = {r["path"]: r for r in svc.search("office", include_superseded=True)["results"]}
    assert shown[a["path"]]["superseded_by"] == c["path"]  # the newest, not the next
    assert paths(svc.search("office")) == [c["path"]]


def _files(vault) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*.md")}


def test_a_supersession_that_would_loop_is_refused_and_writes_nothing(svc, empty_vault):
    a = svc.save("Deploys happen on Tuesday mornings", title="Deploy day A")["note"]
    b = svc.save("Deploys happen on Thursday mornings", title="Deploy day B")["note"]
    c = svc.save("Deploys happen on Friday mornings now", title="Deploy day C")["note"]
    svc.supersede(a["id"], b["id"])
    before = _files(empty_vault)
    with pytest.raises(SupersessionCycle) as err:
        svc.supersede(b["id"], a["id"])
    assert "loop" in str(err.value) and a["path"] in str(err.value)
    svc.supersede(b["id"], c["id"])
    with pytest.raises(SupersessionCycle):  # through the chain: A -> B -> C -> A
        svc.supersede(c["id"], a["id"])
    assert svc.status()["supersession_cycles"] == []
    assert paths(svc.search("deploys mornings")) == [c["path"]]
    [mem] = svc.get_memory([a["id"]])
    assert mem["history"] == {"chain": [a["path"], b["path"], c["path"]], "current": c["path"], "cycle": False}
    assert set(_files(empty_vault)) == set(before)


def test_a_loop_is_refused_with_its_reason_on_cli_mcp_and_http(svc, empty_vault):
    import asyncio

    from fastmcp import Client
    from test_editor_hold import bridge

    from bridge.mcp_server import build_mcp

    a = svc.save("The standup is at nine", title="Standup A")["note"]
    b = svc.save("The standup is at ten now", title="Standup B")["note"]
    svc.supersede(a["id"], b["id"])
    before = _files(empty_vault)
    r = CliRunner().invoke(app, ["supersede", b["id"], "--by", a["id"], "--vault", str(empty_vault)])
    assert r.exit_code == 5 and "loop" in r.output, r.output

    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            return await c.call_tool("supersede_memory", {"old": b["id"], "by": a["id"]}, raise_on_error=False)

    bad = asyncio.run(go())
    assert bad.is_error and "loop" in bad.content[0].text
    with bridge(svc) as client:
        r = client.post("/api/rpc", json={"op": "supersede", "args": {"old": b["id"], "by": a["id"]}})
    assert (
        r.status_code == 409
        and r.json()["error"]["code"] == "supersession_cycle"
        and "loop" in r.json()["error"]["message"]
    )
    assert _files(empty_vault) == before


def _link_by_hand(vault, rel: str, to: str) -> None:
    note = vault / rel
    note.write_text(
        note.read_text().replace("status: active", f'superseded_by: "[[{to}]]"\nstatus: superseded', 1),
        encoding="utf-8",
    )


def test_a_hand_written_loop_leaves_every_member_current_and_is_reported(svc, empty_vault):
    a = svc.save("Deploys happen on Tuesday mornings", title="Deploy day A", strength=2.0)["note"]
    b = svc.save("Deploys happen on Thursday mornings", title="Deploy day B", strength=2.0)["note"]
    _link_by_hand(empty_vault, a["path"], "Deploy day B")
    _link_by_hand(empty_vault, b["path"], "Deploy day A")
    svc.sync()
    assert svc.status()["supersession_cycles"] == [sorted([a["path"], b["path"]])]
    assert sorted(paths(svc.search("deploys mornings"))) == sorted([a["path"], b["path"]])
    assert {i["path"] for i in svc.brief()["included"]} == {a["path"], b["path"]}
    assert svc.gc()["candidates"] == []  # fresh and strong: neither is archived for being superseded
    [mem] = svc.get_memory([a["id"]])
    assert mem["history"]["cycle"] is True and svc.note(a["path"])["superseded_by"] is None
    shown = {r["path"]: r for r in svc.search("deploys mornings", include_superseded=True)["results"]}
    assert shown[a["path"]]["superseded_by"] is None  # a cycle names no successor
    # a memory superseded by a loop's member is still superseded
    c = svc.save("Deploys happened on Monday mornings long ago", title="Deploy day C")["note"]
    svc.supersede(c["id"], a["id"])
    assert c["path"] not in paths(svc.search("deploys mornings"))


def test_re_superseding_moves_the_links_and_history_never_ends_in_the_archive(svc, empty_vault):
    a = svc.save("The office is in Lisbon on the third floor", title="Office A")["note"]
    b = svc.save("The office moved to Porto near the station", title="Office B", supersedes=[a["id"]])["note"]
    svc.archive(b["id"])  # the person found B wrong
    c = svc.save("The office moved to Madrid by the park", title="Office C")["note"]
    svc.supersede(a["id"], c["id"])
    archived_b = (empty_vault / "Archive" / "Office B.md").read_text()
    assert "supersedes" not in archived_b  # no stale back-link left behind
    [mem] = svc.get_memory([a["id"]])
    assert mem["history"] == {"chain": [a["path"], c["path"]], "current": c["path"], "cycle": False}
    assert svc.note(a["path"])["superseded_by"] == c["path"]
    [old_b] = svc.get_memory(["Archive/Office B.md"])
    assert old_b["history"]["chain"] == ["Archive/Office B.md"]
    # the other way round: B superseded by A, then by C: A lets go of it
    d = svc.save("Lunch is at noon on Fridays", title="Lunch D")["note"]
    e = svc.save("Lunch is at one on Fridays now", title="Lunch E", supersedes=[d["id"]])["note"]
    f = svc.save("Lunch is at half past twelve on Fridays", title="Lunch F")["note"]
    svc.supersede(d["id"], f["id"])
    assert "supersedes" not in (empty_vault / e["path"]).read_text()
    assert svc.get_memory([d["id"]])[0]["history"]["current"] == f["path"]
    assert_index_matches_rebuild(svc)


def test_bad_supersede_refs_lose_nothing(svc, empty_vault):
    old = svc.save(OLD_TEXT)["note"]
    with pytest.raises(Exception):
        svc.save(NEW_TEXT, supersedes=["no such memory"])
    assert len(list((empty_vault / "STM").glob("*.md"))) == 1  # nothing saved
    with pytest.raises(InvalidInput):
        svc.supersede(old["id"], old["id"])


def test_gc_archives_superseded_whatever_the_score_and_restore_brings_it_back(svc, empty_vault):
    old = svc.save(OLD_TEXT, title="Prefers Python", strength=2.0)["note"]
    assert svc.gc()["candidates"] == []  # fresh and strong: nothing to forget
    svc.save(NEW_TEXT, title="Prefers Go", supersedes=[old["id"]])
    cands = svc.gc()["candidates"]
    assert [c["path"] for c in cands] == [old["path"]] and "superseded" in cands[0]["reason"]
    done = svc.gc(dry_run=False)
    [moved] = done["archived"]
    assert moved["to"].startswith("Archive/")
    assert OLD_TEXT in (empty_vault / moved["to"]).read_text()
    back = svc.restore(old["id"])
    assert back["to"].startswith("STM/")
    # restored, it still says what replaced it: search keeps it out
    assert old["id"] not in [r["id"] for r in svc.search("python backend")["results"]]
    # and it stays restored: the next GC leaves it, it fades by its score like any memory
    assert svc.note(back["to"])["status"] == "active"
    assert svc.gc()["candidates"] == [] and svc.gc(dry_run=False)["archived"] == []
    assert (empty_vault / back["to"]).exists()
    svc.clock = lambda: FIXED_NOW + timedelta(days=400)
    fade = {c["path"]: c for c in svc.gc()["candidates"]}  # the new fact fades too, a year unused
    assert "superseded" not in fade[back["to"]]["reason"]


def test_hand_written_superseded_by_is_followed_by_the_watcher(empty_vault):
    svc = make_service(empty_vault)
    try:
        old = svc.save("The team standup is at nine every weekday", title="Standup nine")["note"]
        new = svc.save("The team standup moved to ten every weekday", title="Standup ten")["note"]
        assert old["path"] in paths(svc.search("standup weekday"))
        svc.start_watcher()
        note = empty_vault / old["path"]
        text = note.read_text()
        note.write_text(text.replace("---\n", '---\nsuperseded_by: "[[Standup ten]]"\n', 1), encoding="utf-8")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and old["path"] in paths(svc.search("standup weekday")):
            time.sleep(0.1)
        assert paths(svc.search("standup weekday")) == [new["path"]]
        [mem] = svc.get_memory([old["path"]])
        assert mem["history"]["chain"] == [old["path"], new["path"]]
        assert svc.status()["supersession_cycles"] == []
    finally:
        svc.runtime.stop_watcher()
        svc.close()


def test_cli_save_supersedes_and_supersede_command(empty_vault):
    runner = CliRunner()
    r = runner.invoke(app, ["save", OLD_TEXT, "--title", "Prefers Python", "--vault", str(empty_vault), "--json"])
    assert r.exit_code == 0, r.output
    old = json.loads(r.output)["note"]
    r = runner.invoke(
        app,
        ["save", NEW_TEXT, "--title", "Prefers Go", "--supersedes", old["id"], "--vault", str(empty_vault), "--json"],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["superseded"] == [old["path"]]
    r = runner.invoke(
        app,
        ["save", "Backend services run on Go and Postgres", "--title", "Stack", "--vault", str(empty_vault), "--json"],
    )
    stack = json.loads(r.output)["note"]
    r = runner.invoke(app, ["supersede", "STM/Prefers Go.md", "--by", stack["id"], "--vault", str(empty_vault)])
    assert r.exit_code == 0, r.output
    assert "is superseded by STM/Stack.md" in r.output
    r = runner.invoke(app, ["search", "backend", "--vault", str(empty_vault), "--json"])
    assert [h["path"] for h in json.loads(r.output)["results"]] == ["STM/Stack.md"]
    r = runner.invoke(app, ["search", "backend", "--include-superseded", "--vault", str(empty_vault), "--json"])
    hits = {h["path"]: h for h in json.loads(r.output)["results"]}
    assert hits["STM/Prefers Python.md"]["superseded_by"] == "STM/Stack.md"


def test_mcp_save_memory_supersedes_and_supersede_memory(svc):
    import asyncio

    from fastmcp import Client

    from bridge.mcp_server import build_mcp

    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            old = (await c.call_tool("save_memory", {"text": OLD_TEXT, "title": "Prefers Python"})).structured_content
            new = (
                await c.call_tool(
                    "save_memory", {"text": NEW_TEXT, "title": "Prefers Go", "supersedes": [old["note"]["id"]]}
                )
            ).structured_content
            assert new["superseded"] == [old["note"]["path"]]
            later = (
                await c.call_tool(
                    "save_memory", {"text": "Backend services are written in Rust now", "title": "Prefers Rust"}
                )
            ).structured_content
            marked = (
                await c.call_tool("supersede_memory", {"old": new["note"]["id"], "by": later["note"]["id"]})
            ).structured_content
            assert marked["superseded"]["path"] == "STM/Prefers Go.md"
            found = (await c.call_tool("search_memory", {"query": "backend services"})).structured_content
            assert [r["path"] for r in found["results"]] == ["STM/Prefers Rust.md"]
            every = (
                await c.call_tool("search_memory", {"query": "backend services", "include_superseded": True})
            ).structured_content
            assert {r["path"]: r.get("superseded_by") for r in every["results"]} == {
                "STM/Prefers Rust.md": None,
                "STM/Prefers Go.md": "STM/Prefers Rust.md",
                "STM/Prefers Python.md": "STM/Prefers Rust.md",
            }
            bad = await c.call_tool(
                "supersede_memory", {"old": "nope", "by": later["note"]["id"]}, raise_on_error=False
            )
            assert bad.is_error

    asyncio.run(go())


def test_a_superseded_memory_is_never_a_promotion_candidate(svc):
    old = svc.create_memory("The build server is called hermes-01 in rack four", use_count=8)
    assert old["path"] in [c["path"] for c in svc.promote_all(dry_run=True)["candidates"]]
    new = svc.save("The build server is now called apollo-02 in rack six")["note"]
    svc.supersede(old["id"], new["id"])
    assert old["path"] not in [c["path"] for c in svc.promote_all(dry_run=True)["candidates"]]


def test_related_lists_and_a_promotion_never_point_at_a_replaced_fact(svc, empty_vault):
    from test_editor_hold import bridge

    old = svc.save("The commute train leaves at 8:10", title="Train old", tags=["commute", "rail"])["note"]
    new = svc.save(
        "The commute train leaves at 8:40", title="Train new", tags=["commute", "rail"], supersedes=[old["id"]]
    )["note"]
    me = svc.create_memory(
        "Take the rail pass for the commute every weekday", ["commute", "rail"], "Rail pass", use_count=8
    )
    with bridge(svc) as client:
        r = client.get("/api/related", params={"path": me["path"]})
    assert r.status_code == 200 and r.json()["method"] == "tags"
    assert [i["path"] for i in r.json()["items"]] == [new["path"]]
    promoted = svc.promote(me["id"])["promoted"][0]["to"]
    text = (empty_vault / promoted).read_text(encoding="utf-8")
    assert "[[Train new]]" in text and "[[Train old]]" not in text


def test_an_import_never_brings_a_replaced_fact_back(svc, empty_vault, tmp_path):
    old = svc.save("My train leaves at 8:10 from platform two", title="Train old", strength=0.5)["note"]
    new = svc.save("My train leaves at 8:40 from platform two", title="Train new", supersedes=[old["id"]])["note"]
    assert [m["from"] for m in svc.gc(dry_run=False)["archived"]] == [old["path"]]
    export = tmp_path / "mem0.json"
    export.write_text(
        json.dumps(
            [
                {
                    "id": "m1",
                    "memory": "My train leaves at 8:10 from platform two",
                    "created_at": "2026-10-01T08:00:00Z",
                },
                {"id": "m2", "memory": "The bakery opens at seven", "created_at": "2026-10-01T08:00:00Z"},
            ]
        ),
        encoding="utf-8",
    )
    for _ in range(2):  # idempotent: the second run changes nothing either
        out = svc.import_memories("mem0", export)
        assert [r["id"] for r in out["replaced"]] == ["m1"] and out["replaced"][0]["note"] == "Archive/Train old.md"
    hits = svc.search("what time does my train leave")["results"]
    assert [h["path"] for h in hits] == [new["path"]]
    assert len(list((empty_vault / "STM").glob("*.md"))) == 2  # the new fact and the bakery


def test_an_imported_supersedes_relation_is_a_supersession_and_a_loop_is_refused(svc, tmp_path):
    t = int(FIXED_NOW.timestamp()) - 3600
    records = [
        {
            "id": "m1",
            "content": "My train leaves at 8:10 from platform two",
            "created_at": t,
            "last_used": t,
            "status": "active",
        },
        {
            "id": "m2",
            "content": "My train leaves at 8:40 from platform two",
            "created_at": t,
            "last_used": t,
            "status": "active",
        },
        {"id": "m3", "content": "Standup is at nine in room four", "created_at": t, "last_used": t, "status": "active"},
        {"id": "m4", "content": "Standup is at ten in room four", "created_at": t, "last_used": t, "status": "active"},
        {"from_memory_id": "m2", "to_memory_id": "m1", "relation_type": "supersedes"},
        {"from_memory_id": "m3", "to_memory_id": "m4", "relation_type": "supersedes"},
        {"from_memory_id": "m3", "to_memory_id": "m4", "relation_type": "superseded_by"},  # the loop back
    ]
    store = tmp_path / "memories.jsonl"
    store.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = svc.import_memories("cortexgraph", store)
    assert out["created"] == 4 and out["links"] == 2
    [loop] = out["unlinked"]
    assert loop["id"] == "m3" and "loop" in loop["cause"]
    hits = svc.search("what time does my train leave")["results"]
    assert [h["path"] for h in hits][:1] == [out["paths"][1]] and out["paths"][0] not in [h["path"] for h in hits]
    assert svc.note(out["paths"][0])["status"] == "superseded"
    assert svc.status()["supersession_cycles"] == []
    assert_index_matches_rebuild(svc)


def test_loops_are_the_strongly_connected_groups_of_the_successor_graph():
    from vault_sync.lookups import _loops

    succ = {"a": {"b"}, "b": {"c"}, "c": {"a", "x"}, "d": {"a"}, "e": {"f"}, "f": {"e"}, "x": {"y"}, "y": set()}
    assert _loops(succ) == [["a", "b", "c"], ["e", "f"]]
    chain = {f"n{i:04d}": {f"n{i + 1:04d}"} for i in range(3000)}  # deep: no recursion limit
    assert _loops(chain) == []
    chain["n3000"] = {"n0000"}
    assert [len(g) for g in _loops(chain)] == [3001]
