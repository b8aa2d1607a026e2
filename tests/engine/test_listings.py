"""Paged listings on every front end: recent memories, the review queue and search pages
(engine with a fixed clock, MCP in memory, HTTP on a real daemon)."""

from __future__ import annotations

import asyncio

import pytest
from conftest import make_service
from daemon_util import QUIET_LIFECYCLE, Daemon
from fastmcp import Client

from bridge.mcp_server import build_mcp
from vault_sync.dates import parse_datetime
from vault_sync.errors import InvalidInput
from vault_sync.ops.listings import search_page


@pytest.fixture
def svc(vault):
    s = make_service(vault)
    yield s
    s.close()


def test_recent_is_newest_first_paged_and_bounded_by_since(svc):
    first = svc.recent(limit=5)
    assert first["total"] == 31 + 5 and len(first["items"]) == 5 and first["next_offset"] == 5  # STM and LTM
    created = [parse_datetime(n["created"]) for n in first["items"]]
    assert created == sorted(created, reverse=True)
    rest = svc.recent(limit=100, offset=5)
    assert rest["next_offset"] is None and len(rest["items"]) == first["total"] - 5
    assert not {n["path"] for n in rest["items"]} & {n["path"] for n in first["items"]}
    week = svc.recent(since="1d", limit=100)  # the clock is fixed: the last day before it
    assert 0 < week["total"] < first["total"]
    floor = parse_datetime("2026-11-19T12:00:00Z")
    assert all(parse_datetime(n["created"]) >= floor for n in week["items"])
    assert {n["kind"] for n in svc.recent(scope="archive")["items"]} == {"archive"}
    with pytest.raises(InvalidInput):
        svc.recent(since="last tuesday")
    with pytest.raises(InvalidInput):
        svc.recent(offset=-1)


def test_review_pages_add_up_to_the_queue(svc):
    whole = svc.review(1000)
    pages, offset = [], 0
    while offset is not None:
        page = svc.review_page(limit=2, offset=offset)
        assert page["total"] == len(whole)
        pages += page["items"]
        offset = page["next_offset"]
    assert [n["path"] for n in pages] == [n["path"] for n in whole]


def test_search_pages_never_repeat_a_hit(svc):
    seen: list[str] = []
    offset = 0
    while offset is not None:
        page = search_page(svc.engine, "atlas", limit=3, offset=offset)
        seen += [h["path"] for h in page["results"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) > 3
    with pytest.raises(InvalidInput):
        search_page(svc.engine, "atlas", limit=10, offset=195)


def test_mcp_search_refuses_an_empty_query_and_two_spellings_of_used_since(svc):
    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            empty = await c.call_tool("search_memory", {"query": ""}, raise_on_error=False)
            both = await c.call_tool(
                "search_memory", {"query": "atlas", "since_days": 3, "used_since": "3d"}, raise_on_error=False
            )
            one = await c.call_tool("search_memory", {"query": "atlas", "since_days": 3}, raise_on_error=False)
        return empty, both, one

    empty, both, one = asyncio.run(go())
    assert empty.is_error and "query" in empty.content[0].text
    assert both.is_error and "not both" in both.content[0].text
    assert not one.is_error


@pytest.mark.slow
def test_http_review_recent_and_search_pages(vault, tmp_path):
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        review = d.get("/api/review", {"limit": "2", "offset": "1"}).json()
        assert len(review["items"]) == 2 and review["offset"] == 1 and review["total"] > 3
        assert review["next_due"] is None or parse_datetime(review["next_due"]) is not None
        recent = d.get("/api/recent", {"limit": "3"}).json()
        assert len(recent["items"]) == 3 and recent["total"] == 36 and recent["next_offset"] == 3
        first = d.get("/api/search", {"q": "atlas", "limit": "3"}).json()
        second = d.get("/api/search", {"q": "atlas", "limit": "3", "offset": "3"}).json()
        assert first["next_offset"] == 3 and second["offset"] == 3
        assert not {h["path"] for h in first["results"]} & {h["path"] for h in second["results"]}
        assert d.get("/api/recent", {"since": "yesterday"}).status_code == 400
    finally:
        d.close()


def test_next_review_due_is_when_the_first_memory_above_the_zone_enters_it(empty_vault):
    """The empty review queue says when the next memory is due: the earliest instant a memory
    above the danger zone falls to its top if unused (power law, worked out here apart)."""
    from datetime import timedelta

    from conftest import FIXED_NOW

    svc = make_service(empty_vault)
    assert svc.next_review_due() is None  # nothing at all
    p = svc.engine.params
    t0 = p.half_life_s / (2 ** (1 / p.pl_alpha) - 1)

    def enters(uses: int, strength: float, last_used):
        x = p.danger_zone_max / (uses**p.beta * strength)
        return last_used + timedelta(seconds=t0 * (x ** (-1 / p.pl_alpha) - 1))

    svc.create_memory("Fresh and used often", use_count=4, last_used=FIXED_NOW - timedelta(days=1))
    later = FIXED_NOW - timedelta(hours=2)
    svc.create_memory("Saved two hours ago", last_used=later, created=later)
    svc.create_memory(
        "Already in the zone", created=FIXED_NOW - timedelta(days=9), last_used=FIXED_NOW - timedelta(days=6)
    )
    assert [n["title"] for n in svc.review_page()["items"]] == ["Already in the zone"]  # not the next one
    want = min(enters(4, 1.0, FIXED_NOW - timedelta(days=1)), enters(1, 1.0, later))
    assert want > FIXED_NOW
    assert abs((parse_datetime(svc.next_review_due()) - want).total_seconds()) < 1
    svc.close()
