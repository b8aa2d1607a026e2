"""Search reaches the archive: scope `archive`, `include_archived`, `status: archived`, and a
time-bounded search (engine, CLI subprocess, MCP in-memory client, HTTP on a real daemon);
every hit carries status, created, last_used and tags; an archived memory is restored by the
id a search found. Full text fills the documented limit (200) in every script."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import SAMPLE, make_service
from daemon_util import QUIET_LIFECYCLE, Daemon, cli, wait_for
from fastmcp import Client

from bridge.mcp_server import build_mcp

JAN = "STM/Lisbon trip budget.md"
JAN_TEXT = (
    "---\nid: jan-2025-lisbon\ntags: [travel, lisbon]\ncreated: 2025-01-12T10:00:00Z\n"
    "last_used: 2025-01-12T10:00:00Z\nuse_count: 1\nstrength: 1.0\nstatus: active\n---\n"
    "The Lisbon trip budget was 900 euros for the whole week.\n"
)
QUERY = "Lisbon trip budget"
FIELDS = {"status", "created", "last_used", "tags"}


def write_jan(vault: Path) -> None:
    """The memory as written in January 2025 (its file too: gc leaves a note edited seconds ago alone)."""
    (vault / "STM").mkdir(parents=True, exist_ok=True)
    note = vault / JAN
    note.write_text(JAN_TEXT, encoding="utf-8")
    when = datetime(2025, 1, 12, 10, tzinfo=timezone.utc).timestamp()
    os.utime(note, (when, when))


def paths(result: dict) -> list[str]:
    return [h["path"] for h in result["results"]]


def jan_hit(result: dict) -> dict:
    return next(h for h in result["results"] if h["id"] == "jan-2025-lisbon")


def assert_archived_hit(hit: dict) -> None:
    assert hit["path"] == "Archive/Lisbon trip budget.md" and hit["kind"] == "archive"
    assert hit["status"] == "archived"
    assert hit["created"] == "2025-01-12T10:00:00Z" and hit["last_used"] == "2025-01-12T10:00:00Z"
    assert hit["tags"] == ["travel", "lisbon"]


@pytest.fixture
def svc(empty_vault):
    write_jan(empty_vault)
    s = make_service(empty_vault)
    yield s
    s.close()


# -- the engine --


def test_a_time_bounded_search_finds_the_memory_before_and_after_gc_archives_it(svc):
    before = svc.search(QUERY, until="2025-02-01")
    assert paths(before) == [JAN] and jan_hit(before)["status"] == "active"
    archived = svc.gc(dry_run=False)["archived"]
    assert [m["id"] for m in archived] == ["jan-2025-lisbon"]
    assert svc.search(QUERY)["results"] == []  # the default scope is current memories and notes
    for result in (
        svc.search(QUERY, until="2025-02-01"),
        svc.search(QUERY, scope="archive"),
        svc.search(QUERY, include_archived=True),
        svc.search(QUERY, status="archived"),
        svc.search(QUERY, scope="memories", include_archived=True),
        svc.search(QUERY, since_days=1000),
    ):
        assert len(result["results"]) == 1
        assert_archived_hit(result["results"][0])
        assert "archived_matches" not in result
    # restored by the id the search found, it is a current memory again
    svc.restore(svc.search(QUERY, scope="archive")["results"][0]["id"])
    assert paths(svc.search(QUERY)) == [JAN] and svc.search(QUERY, scope="archive")["results"] == []


def test_leaving_the_archive_out_of_a_time_bounded_search_says_how_many_match(svc):
    svc.gc(dry_run=False)
    out = svc.search(QUERY, until="2025-02-01", include_archived=False)
    assert out["results"] == [] and out["archived_matches"] == 1
    assert "1 archived memory" in out["notice"] and "include_archived" in out["notice"]
    out = svc.search("something else entirely", until="2025-02-01", include_archived=False)
    assert out["archived_matches"] == 0 and not out["notice"]


def test_a_search_that_finds_nothing_current_says_how_many_archived_memories_match(svc):
    svc.gc(dry_run=False)
    out = svc.search(QUERY)
    assert out["results"] == [] and out["archived_matches"] == 1 and "scope archive" in out["notice"]
    svc.save("Lisbon trip budget notes for the next visit are in the travel folder")
    out = svc.search(QUERY)  # a current answer: no count, no notice
    assert out["results"] and "archived_matches" not in out and not out["notice"]


def test_archived_hits_rank_below_current_memories_of_the_same_relevance(empty_vault):
    body = JAN_TEXT.split("---\n", 2)[2]
    front = JAN_TEXT.split("---\n", 2)[1]
    (empty_vault / "STM" / "a.md").write_text(
        f"---\n{front.replace('jan-2025-lisbon', 'current')}---\n{body}", encoding="utf-8"
    )
    (empty_vault / "Archive").mkdir()
    (empty_vault / "Archive" / "b.md").write_text(
        f"---\n{front.replace('jan-2025-lisbon', 'old')}---\n{body}", encoding="utf-8"
    )
    s = make_service(empty_vault)
    try:
        hits = s.search(QUERY, include_archived=True)["results"]
        # the same words, and the current memory has faded to nothing: it still ranks first
        assert [h["id"] for h in hits] == ["current", "old"] and hits[0]["parts"]["fts"] == hits[1]["parts"]["fts"]
        assert hits[0]["parts"]["decay"] < 0.01 and hits[1]["score"] < hits[0]["score"]
        assert hits[1]["status"] == "archived"  # its frontmatter says active: Archive/ decides
    finally:
        s.close()


def test_a_superseded_memory_is_found_in_the_archive_naming_its_successor_and_nowhere_else(empty_vault):
    s = make_service(empty_vault)
    try:
        old = s.save("The office Wi-Fi password hint is the cat's name")["note"]
        new = s.save("The office Wi-Fi password hint is now the dog's name", supersedes=[old["id"]])["note"]
        assert old["id"] in [m["id"] for m in s.gc(dry_run=False)["archived"]]
        # gc archives every superseded memory: the archive's own search is history and shows it
        shown = s.search("office Wi-Fi password hint", scope="archive")["results"]
        assert [h["id"] for h in shown] == [old["id"]] and shown[0]["superseded_by"] == new["path"]
        # a current answer never is the replaced fact, the archive added or not
        for kwargs in ({}, {"include_archived": True}, {"until": "2100-01-01"}):
            hits = s.search("office Wi-Fi password hint", **kwargs)["results"]
            assert old["id"] not in [h["id"] for h in hits] and hits[0]["id"] == new["id"]
    finally:
        s.close()


def test_every_hit_carries_status_dates_and_tags(vault):
    s = make_service(vault)
    try:
        hits = s.search("atlas", limit=50, include_archived=True)["results"]
        kinds = {h["kind"] for h in hits}
        assert {"stm", "archive"} <= kinds
        for h in hits:
            assert FIELDS <= set(h) and isinstance(h["tags"], list)
            note = s.note(h["path"])
            assert (h["created"], h["last_used"], sorted(h["tags"])) == (
                note["created"],
                note["last_used"],
                sorted(note["tags"]),
            )
            assert h["status"] == ("archived" if h["kind"] == "archive" else note["status"])
    finally:
        s.close()


def test_bad_include_archived_is_a_clear_error(svc):
    from vault_sync.errors import InvalidInput

    with pytest.raises(InvalidInput, match="include_archived"):
        svc.search(QUERY, include_archived="yes")  # type: ignore[arg-type]


# -- the limit, in every script --

SCRIPTS = {
    "latin": ("Garden plan number {i}: the compost heap goes beside the shed.", "compost heap"),
    "cjk": ("第{i}号笔记：花园计划里堆肥放在棚子旁边。", "花园计划"),
    "cjk-short": ("第{i}号笔记：花园计划里堆肥放在棚子旁边。", "堆肥"),
    "thai": ("บันทึกที่ {i} แผนสวน กองปุ๋ยหมักอยู่ข้างโรงเก็บของ", "กองปุ๋ยหมัก"),
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_full_text_returns_up_to_the_limit_in_every_script(empty_vault, script):
    text, query = SCRIPTS[script]
    for i in range(150):
        (empty_vault / "STM" / f"n{i:03d}.md").write_text(
            f"---\nid: n{i}\ncreated: 2026-11-19T10:00:00Z\nlast_used: 2026-11-19T10:00:00Z\nuse_count: 2\n"
            f"strength: 1.0\nstatus: active\n---\n{text.format(i=i)}\n",
            encoding="utf-8",
        )
    s = make_service(empty_vault)
    try:
        assert len(s.search(query, limit=200)["results"]) == 150
        assert len(s.search(query, limit=100)["results"]) == 100
        assert len(s.search(query, limit=5)["results"]) == 5
        if script == "latin":  # the MCP tool takes the documented limit too
            result = asyncio.run(_mcp(s, "search_memory", query=query, limit=200))
            got = len(result["results"])  # all 150, or as many as the answer's ceiling holds and where to go on
            assert got == 150 or (50 <= got < 150 and result["next_offset"] == got), result.get("cut")
    finally:
        s.close()


# -- the front ends --


async def _mcp(svc, tool: str, **args) -> dict:
    async with Client(build_mcp(lambda: svc)) as c:
        result = await c.call_tool(tool, args)
        assert not result.is_error, result.content
        return result.structured_content


def test_mcp_finds_the_archive_and_restores_by_the_found_id(svc):
    before = asyncio.run(_mcp(svc, "search_memory", query=QUERY, until="2025-02-01"))
    assert paths(before) == [JAN] and FIELDS <= set(before["results"][0])
    svc.gc(dry_run=False)
    assert asyncio.run(_mcp(svc, "search_memory", query=QUERY))["results"] == []
    for args in ({"until": "2025-02-01"}, {"scope": "archive"}, {"status": "archived"}, {"include_archived": True}):
        result = asyncio.run(_mcp(svc, "search_memory", query=QUERY, **args))
        assert len(result["results"]) == 1, args
        assert_archived_hit(result["results"][0])
    out = asyncio.run(_mcp(svc, "search_memory", query=QUERY, until="2025-02-01", include_archived=False))
    assert out["results"] == [] and out["archived_matches"] == 1
    found = asyncio.run(_mcp(svc, "search_memory", query=QUERY, scope="archive"))["results"][0]["id"]
    moved = asyncio.run(_mcp(svc, "restore_memory", ref=found))
    assert moved["to"] == JAN
    assert paths(asyncio.run(_mcp(svc, "search_memory", query=QUERY))) == [JAN]


def test_cli_finds_the_archive_and_restores_by_the_found_id(empty_vault):
    vault = empty_vault
    assert cli("init", str(vault)).returncode == 0
    write_jan(vault)

    def search(*args: str) -> dict:
        r = cli("search", QUERY, "--vault", str(vault), "--json", *args)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    assert paths(search("--until", "2025-02-01")) == [JAN]
    r = cli("gc", "--apply", "--vault", str(vault), "--json")  # the real clock: a memory unused since 2025 is forgotten
    assert r.returncode == 0, r.stderr
    assert (vault / "Archive" / "Lisbon trip budget.md").exists()
    assert search()["results"] == []
    for args in (("--until", "2025-02-01"), ("--scope", "archive"), ("--include-archived",)):
        result = search(*args)
        assert len(result["results"]) == 1, args
        assert_archived_hit(result["results"][0])
    hidden = search("--until", "2025-02-01", "--no-include-archived")
    assert hidden["results"] == [] and hidden["archived_matches"] == 1
    plain = cli("search", QUERY, "--vault", str(vault), "--scope", "archive")
    assert plain.returncode == 0, plain.stderr
    assert "[archived]" in plain.stdout and "id jan-2025-lisbon" in plain.stdout
    assert "created 2025-01-12T10:00:00Z" in plain.stdout and "#travel #lisbon" in plain.stdout
    told = cli("search", QUERY, "--vault", str(vault), "--until", "2025-02-01", "--no-include-archived")
    assert "1 archived memory matches" in " ".join(told.stdout.split())
    r = cli("restore", search("--scope", "archive")["results"][0]["id"], "--vault", str(vault))
    assert r.returncode == 0, r.stderr
    assert paths(search()) == [JAN]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_http_finds_the_archive_after_the_daemons_gc_and_restores_by_the_found_id(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE, vault)
    write_jan(vault)
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:

        def search(**params) -> dict:
            r = d.get("/api/search", params={"q": QUERY, **params})
            assert r.status_code == 200, r.text
            return r.json()

        before = search(until="2025-02-01")
        assert paths(before) == [JAN] and FIELDS <= set(before["results"][0])
        job = d.post("/api/jobs", {"kind": "gc"}).json()
        done = wait_for(
            lambda: next(
                (j for j in d.get("/api/jobs").json()["jobs"] if j["id"] == job["id"] and j["state"] != "running"), None
            ),
            timeout=120,
        )
        assert done and done["state"] == "done", done
        assert "jan-2025-lisbon" in [m["id"] for m in done["result"]["archived"]]
        assert "jan-2025-lisbon" not in [h["id"] for h in search()["results"]]
        for params in ({"until": "2025-02-01"}, {"scope": "archive"}, {"include_archived": "true"}):
            result = search(**params)  # the sample vault's archive holds other memories about Lisbon
            assert_archived_hit(jan_hit(result))
            assert all(h["status"] == "archived" for h in result["results"] if h["kind"] == "archive")
        assert paths(search(until="2025-02-01")) == ["Archive/Lisbon trip budget.md"]
        hidden = search(until="2025-02-01", include_archived="false")
        assert hidden["results"] == [] and hidden["archived_matches"] == 1
        assert d.get("/api/search", params={"q": QUERY, "include_archived": "maybe"}).status_code == 400
        found = jan_hit(search(scope="archive"))["id"]
        r = d.post("/api/restore", {"ref": found})
        assert r.status_code == 200, r.text
        assert r.json()["restored"][0]["to"] == JAN
        assert jan_hit(search())["path"] == JAN
    finally:
        d.close()
