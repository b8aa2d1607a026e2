"""A batch save retried after a daemon crash adds nothing twice: with the client's batch id,
every note the batch creates or reinforces records it in the same write. A real daemon,
killed with kill -9 between the attempts, and a real MCP client over HTTP."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import yaml
from conftest import index_dump, make_service, rebuild_dump
from daemon_util import QUIET_LIFECYCLE, Daemon
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.exceptions import ToolError

from vault_sync.errors import InvalidInput

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon and signals")

OLD = "Ines keeps the spare office keys in the second drawer"
A = "The staging database is restored from backup every Sunday night"
B = "Customer invoices are exported to the finance share on the first of each month"


def _save(d: Daemon, items: list, batch_id: str | None) -> dict:
    async def go():
        transport = StreamableHttpTransport(d.url + "/mcp", headers=d.auth)
        async with Client(transport, timeout=60) as c:
            args = {"items": [{"text": t} for t in items]} | ({"batch_id": batch_id} if batch_id else {})
            return (await c.call_tool("save_memories", args)).structured_content

    return asyncio.run(go())


def _uses(vault: Path) -> dict[str, int]:
    """use_count of each memory by its first body line."""
    out = {}
    for p in (vault / "STM").glob("*.md"):
        text = p.read_text(encoding="utf-8")
        _, fm, body = text.split("---\n", 2)
        out[body.strip().splitlines()[0]] = yaml.safe_load(fm)["use_count"]
    return out


def test_a_retried_batch_after_kill_9_counts_every_item_once(empty_vault, tmp_path):
    vault = empty_vault
    svc = make_service(vault)
    svc.save(OLD)  # already known before the batch: the batch reinforces it
    svc.close()
    d = Daemon(vault, tmp_path / "home", MNEMOVAULT_QUIET_SECONDS="0", **QUIET_LIFECYCLE).start()
    try:
        # the first attempt was written, then the daemon died before its answer reached the client
        first = _save(d, [OLD, A, B, A], "batch-7")
        assert [r.get("reinforced") for r in first["results"]] == [True, False, False, True]
        d.kill()
        d.start()
        # the client retries the whole batch, with the same id
        again = _save(d, [OLD, A, B, A], "batch-7")
        assert [r.get("already_saved", False) for r in again["results"]] == [True, True, True, True]
        assert (again["saved"], again["reinforced"]) == (0, 0)
        assert _uses(vault) == {OLD: 2, A: 2, B: 1}
        # the same id with other items is the client's mistake: refused, nothing written
        before = {p.name: p.read_bytes() for p in (vault / "STM").glob("*.md")}
        with pytest.raises(ToolError, match="batch_id 'batch-7' was already used for other memories"):
            _save(d, [OLD, A, B, "A new memory sent under an old batch id"], "batch-7")
        assert {p.name: p.read_bytes() for p in (vault / "STM").glob("*.md")} == before
        # another batch is another use
        other = _save(d, [OLD, A], "batch-8")
        assert other["reinforced"] == 2 and _uses(vault) == {OLD: 3, A: 3, B: 1}
        # without an id a repeat is a new use, as before
        _save(d, [B], None)
        assert _uses(vault)[B] == 2
        assert d.stop() == 0
        assert index_dump(d.index_path) == rebuild_dump(vault)
    finally:
        d.close()


def test_a_batch_id_is_checked_like_any_stored_value(empty_vault):
    svc = make_service(empty_vault)
    try:
        for bad, why in (
            ("", "non-empty"),
            ("a\nb", "line break"),
            ("x" * 201, "too long"),
            ("ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", ""),
        ):
            with pytest.raises(InvalidInput) as err:  # Refused, for the secret, is one too
                svc.save_many([A], batch_id=bad)
            assert why in str(err.value)
        assert not list((empty_vault / "STM").glob("*.md"))
    finally:
        svc.close()


def test_a_batch_that_failed_half_way_is_finished_by_its_retry(empty_vault, monkeypatch):
    """The first attempt reinforced OLD, then the disk filled before its new notes were written:
    the retry (the same items, the same id) writes them and counts OLD once."""
    from vault_sync.errors import DiskFull
    from vault_sync.ops import save_batch

    svc = make_service(empty_vault)
    try:
        svc.save(OLD)
        real = save_batch._write

        def disk_full(*args, **kwargs):
            raise DiskFull("cannot write STM/: the disk is full; free some space, then try again")

        monkeypatch.setattr(save_batch, "_write", disk_full)
        with pytest.raises(DiskFull):
            svc.save_many([OLD, A, B], batch_id="batch-9")
        assert _uses(empty_vault) == {OLD: 2}
        monkeypatch.setattr(save_batch, "_write", real)
        again = svc.save_many([OLD, A, B], batch_id="batch-9")
        assert [r.get("already_saved", False) for r in again["results"]] == [True, False, False]
        assert _uses(empty_vault) == {OLD: 2, A: 1, B: 1}
        with pytest.raises(InvalidInput, match="batch-9"):
            svc.save_many([OLD, A], batch_id="batch-9")  # a part of it is other content too
    finally:
        svc.close()
