"""Every front end says what a repeat did: "reinforced <id> (similarity x)", with no copy
written. The CLI and the daemon run with embeddings off (child_env), so the repeat check reads
words and says so; the model's side is tests/engine/test_repeats.py."""

from __future__ import annotations

import asyncio
import json

from conftest import make_service
from daemon_util import cli
from fastmcp import Client

from bridge.mcp_server import build_mcp

FACT = "The build cache lives on the shared NFS volume at /mnt/cache"
SAME = "On the shared NFS volume at /mnt/cache lives the build cache"


def _stm(vault) -> int:
    return len(list((vault / "STM").glob("*.md")))


def test_cli_save_says_reinforced_with_id_and_similarity(vault):
    first = cli("save", FACT, "--vault", str(vault), "--json")
    assert first.returncode == 0, first.stderr
    note_id = json.loads(first.stdout)["note"]["id"]
    count = _stm(vault)
    again = cli("save", SAME, "--vault", str(vault))
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stdout.split())  # rich wraps long lines
    assert f"reinforced {note_id} (similarity 1.00)" in said and "compared by words" in said
    assert _stm(vault) == count
    other = cli("save", "The build cache lives on the shared NFS volume at /mnt/cache2", "--vault", str(vault))
    assert other.returncode == 0 and "saved STM/" in other.stdout  # another path: another fact
    assert "repeat check" not in other.stdout  # embeddings off is the person's choice, not news


def test_mcp_save_memory_says_reinforced(vault):
    svc = make_service(vault)

    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            first = (await c.call_tool("save_memory", {"text": FACT})).structured_content
            again = (await c.call_tool("save_memory", {"text": SAME})).structured_content
            batch = (await c.call_tool("save_memories", {"items": [{"text": SAME}]})).structured_content
            return first, again, batch

    try:
        first, again, batch = asyncio.run(go())
    finally:
        svc.close()
    note_id = first["note"]["id"]
    assert again["reinforced"] is True and again["saved"] is False and again["similarity"] == 1.0
    assert again["message"].startswith(f"reinforced {note_id} (similarity 1.00)")
    assert again["repeat_of"]["id"] == note_id and again["note"]["use_count"] == 2
    item = batch["results"][0]
    assert batch["reinforced"] == 1 and item["message"].startswith(f"reinforced {note_id} (similarity 1.00)")


def test_http_save_says_reinforced(daemon, vault):
    first = daemon.post("/api/rpc", {"op": "save", "args": {"text": FACT}}).json()["result"]
    count = _stm(vault)
    again = daemon.post("/api/rpc", {"op": "save", "args": {"text": SAME}}).json()["result"]
    assert again["reinforced"] is True and again["duplicate_of"] == first["note"]["path"]
    assert again["message"].startswith(f"reinforced {first['note']['id']} (similarity 1.00)")
    assert _stm(vault) == count
