"""A memory in Chinese, Japanese, Korean, Thai, Arabic and Russian is saved and then found by
a query in its own script, through every front end: the engine facade, the CLI, MCP (in
memory, against the real server) and the HTTP bridge of a real daemon. A text too short in
each script is refused with the same clear message everywhere, and nothing is written."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from conftest import make_service
from daemon_util import QUIET_LIFECYCLE, Daemon
from fastmcp import Client
from scripts_corpus import LANGS, SCRIPTS
from typer.testing import CliRunner

from bridge.cli import app
from bridge.mcp_server import build_mcp
from vault_sync.errors import Refused


def notes(vault) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))


def found(results: list[dict], path: str) -> bool:
    return any(hit["path"] == path for hit in results)


def test_the_engine_saves_and_finds_every_script(empty_vault):
    svc = make_service(empty_vault)
    try:
        for lang in LANGS:
            text, query, short = SCRIPTS[lang]
            out = svc.save(text)
            assert out["saved"] is True, lang
            path = out["note"]["path"]
            assert (empty_vault / path).read_text(encoding="utf-8").endswith(text + "\n")
            hits = svc.search(query)["results"]
            assert found(hits, path), (lang, query, hits)
            before = notes(empty_vault)
            with pytest.raises(Refused, match="too short to be a useful memory"):
                svc.save(short)
            assert notes(empty_vault) == before
    finally:
        svc.close()


def test_the_cli_saves_and_finds_every_script(empty_vault):
    runner = CliRunner()
    for lang in LANGS:
        text, query, short = SCRIPTS[lang]
        res = runner.invoke(app, ["save", text, "--vault", str(empty_vault), "--json"])
        assert res.exit_code == 0, res.output
        path = json.loads(res.output)["note"]["path"]
        res = runner.invoke(app, ["search", query, "--vault", str(empty_vault), "--json"])
        assert res.exit_code == 0, res.output
        assert found(json.loads(res.output)["results"], path), (lang, res.output)
        before = notes(empty_vault)
        res = runner.invoke(app, ["save", short, "--vault", str(empty_vault)])
        assert res.exit_code != 0 and "too short to be a useful memory" in res.output, res.output
        assert notes(empty_vault) == before


def test_mcp_saves_and_finds_every_script(empty_vault):
    svc = make_service(empty_vault)

    async def go() -> None:
        async with Client(build_mcp(lambda: svc)) as c:
            for lang in LANGS:
                text, query, short = SCRIPTS[lang]
                saved = await c.call_tool("save_memory", {"text": text})
                path = saved.structured_content["note"]["path"]
                hits = await c.call_tool("search_memory", {"query": query})
                assert found(hits.structured_content["results"], path), (lang, hits.structured_content)
                before = notes(empty_vault)
                bad = await c.call_tool("save_memory", {"text": short}, raise_on_error=False)
                assert bad.is_error and "too short to be a useful memory" in bad.content[0].text, lang
                assert notes(empty_vault) == before
            # the batch path counts the same way: one call, every script, each short one refused
            many = await c.call_tool(
                "save_memories", {"items": [{"text": SCRIPTS[lang][0] + " " + SCRIPTS[lang][0]} for lang in LANGS]}
            )
            results = many.structured_content["results"]
            assert all(r.get("saved") for r in results), results
            short = await c.call_tool("save_memories", {"items": [{"text": SCRIPTS[lang][2]} for lang in LANGS]})
            assert all("too short" in r["error"] for r in short.structured_content["results"])

    try:
        asyncio.run(go())
    finally:
        svc.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_the_http_bridge_saves_and_finds_every_script(empty_vault, tmp_path):
    d = Daemon(empty_vault, tmp_path / "home", **QUIET_LIFECYCLE)
    try:
        d.start()
        for i, lang in enumerate(LANGS):
            text, query, short = SCRIPTS[lang]
            # the plugin's capture route and the rpc route take turns
            if i % 2:
                resp = d.post("/api/save", {"text": text})
                assert resp.status_code == 200, resp.text
                path = resp.json()["note"]["path"]
            else:
                resp = d.post("/api/rpc", {"op": "save", "args": {"text": text}})
                assert resp.status_code == 200, resp.text
                path = resp.json()["result"]["note"]["path"]
            resp = d.get("/api/search", params={"q": query})
            assert resp.status_code == 200 and found(resp.json()["results"], path), (lang, resp.text)
            before = notes(empty_vault)
            for route, body in (("/api/save", {"text": short}), ("/api/rpc", {"op": "save", "args": {"text": short}})):
                resp = d.post(route, body)
                assert resp.status_code == 422 and resp.json()["error"]["code"] == "refused", resp.text
                assert "too short to be a useful memory" in resp.json()["error"]["message"]
            assert notes(empty_vault) == before
    finally:
        d.close()
