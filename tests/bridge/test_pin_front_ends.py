"""pin / unpin through the HTTP bridge (a real daemon on 127.0.0.1) and the `mnemovault`
command (a real subprocess, through the daemon and on its own); MCP is in test_mcp.py."""

from __future__ import annotations

import json
import sys

import pytest
from daemon_util import child_env, cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

REINDEX = "STM/Atlas search reindex takes 40 minutes.md"  # in the sample vault's review queue
STAGING = "STM/Staging runs Postgres 16.md"


def _queue(daemon) -> set[str]:
    return {m["path"] for m in daemon.get("/api/review", params={"limit": 100}).json()["items"]}


def test_http_pin_keeps_it_out_of_review_and_unpin_with_prior_gives_back_the_bytes(daemon, vault):
    note = vault / REINDEX
    original = note.read_bytes()
    assert REINDEX in _queue(daemon)
    r = daemon.post("/api/pin", {"ref": REINDEX})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["pinned"] is True and out["changed"] is True and out["note"]["state"] == "pinned"
    text = note.read_text(encoding="utf-8")
    assert "pinned: true" in text and "review_on:" not in text and "archive_on:" not in text
    assert REINDEX not in _queue(daemon)
    assert daemon.get("/api/note", params={"path": REINDEX}).json()["pinned"] is True

    back = daemon.post("/api/unpin", {"ref": REINDEX, "prior": out["prior"]})
    assert back.status_code == 200, back.text
    assert back.json()["pinned"] is False and note.read_bytes() == original
    assert REINDEX in _queue(daemon)


def test_http_pin_refuses_bad_input_and_changes_nothing(daemon, vault):
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    assert daemon.post("/api/pin", {}).status_code == 400
    assert daemon.post("/api/pin", {"ref": REINDEX, "pinned": "yes"}).status_code == 400  # unknown field
    assert daemon.post("/api/unpin", {"ref": REINDEX, "prior": {"last_used": 3}}).status_code == 400
    missing = daemon.post("/api/pin", {"ref": "no-such-memory"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    archived = daemon.post("/api/pin", {"ref": "Archive/Team channel was atlas-dev.md"})
    assert archived.status_code == 409 and archived.json()["error"]["code"] == "wrong_state"
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before


def test_cli_pin_through_the_daemon_and_unpin_on_its_own(daemon, vault):
    out = cli("pin", STAGING, "--vault", str(vault), "--json", env=daemon.env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["pinned"] is True
    assert daemon.get("/api/note", params={"path": STAGING}).json()["state"] == "pinned"

    again = cli("pin", STAGING, "--vault", str(vault), env=daemon.env)
    assert again.returncode == 0 and "already pinned" in again.stdout

    err = cli("unpin", "no-such-memory", "--vault", str(vault), env=daemon.env)
    assert err.returncode == 4 and "no note with id or path" in err.stderr


def test_cli_unpin_without_a_daemon(vault, tmp_path):
    env = child_env(tmp_path / "home", MNEMOVAULT_NO_DAEMON="1")
    assert cli("pin", STAGING, "--vault", str(vault), env=env).returncode == 0
    assert "pinned: true" in (vault / STAGING).read_text(encoding="utf-8")
    out = cli("unpin", STAGING, "--vault", str(vault), env=env)
    assert out.returncode == 0, out.stderr
    assert "unpinned" in out.stdout
    text = (vault / STAGING).read_text(encoding="utf-8")
    assert "pinned" not in text and "archive_on:" in text
