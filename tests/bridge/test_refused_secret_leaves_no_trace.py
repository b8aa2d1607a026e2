"""A refused secret leaves no trace: after a save carrying an npm token (and the other new
formats) is refused through every front end (the engine facade, the CLI, MCP, the HTTP bridge
of a real daemon, batch save and imports), no file anywhere under the test's directories (the
vault, the index, the daemon's home and logs) holds the token, in its bytes or its name, and
neither does the error, the printed output or a log line.

The tokens are assembled at run time, so this file holds nothing a secret scanner would flag.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import string
import sys
import uuid
from pathlib import Path

import pytest
from conftest import make_service
from daemon_util import QUIET_LIFECYCLE, Daemon
from fastmcp import Client
from typer.testing import CliRunner

from bridge.cli import app
from bridge.mcp_server import build_mcp
from vault_sync.errors import Refused

_RNG = random.Random(38)
ALNUM = string.ascii_letters + string.digits


def _r(n: int) -> str:
    return "Q7z" + "".join(_RNG.choice(ALNUM) for _ in range(n - 3))


NPM = "np" + "m_" + _r(36)
DISCORD = "https://discord" + ".com/api/webhooks/" + "1234567" + "89012345678/" + _r(68)
AZURE = "DefaultEndpointsProtocol=https;AccountName=atlas;Account" + "Key=" + _r(86) + "=="
TOKENS = [NPM, DISCORD, AZURE]


def secret_part(token: str) -> str:
    """The part of a token that must appear nowhere (a URL's or a connection string's key)."""
    return token.rsplit("/", 1)[-1].rsplit("=", 3)[0][-40:] if token != NPM else token[4:]


def assert_no_trace(root: Path, *texts: str, skip: Path | None = None) -> None:
    for token in TOKENS:
        part = secret_part(token)
        for text in texts:
            assert part not in text, text[:500]
        for path in root.rglob("*"):
            if skip is not None and (path == skip or skip in path.parents):
                continue  # the import's own source files
            assert part not in str(path), path
            if path.is_file():
                assert part.encode() not in path.read_bytes(), path


def memories(vault: Path) -> list[Path]:
    return sorted(vault.rglob("*.md"))


def test_the_engine_facade_and_batch_save_leave_no_trace(empty_vault, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    svc = make_service(empty_vault)
    messages = []
    try:
        for token in TOKENS:
            for kwargs in (
                {"text": f"publish with {token} from the release job"},
                {"text": token},  # alone: refused as a secret, not as too short
                {"text": "The release job publishes the package on Fridays.", "title": token},
                {"text": "The release job publishes the package on Fridays.", "tags": [token]},
            ):
                with pytest.raises(Refused, match="secret") as err:
                    svc.save(**kwargs)
                messages.append(str(err.value))
            out = svc.save_many([{"text": f"the token is {token} for the bot"}, {"text": "x", "title": token}])
            messages += [json.dumps(out)]
            assert all("error" in r for r in out["results"]), out
        assert memories(empty_vault) == []
    finally:
        svc.close()
    assert_no_trace(tmp_path, *messages, caplog.text)


def test_the_cli_and_imports_leave_no_trace(empty_vault, tmp_path):
    runner = CliRunner()
    outputs = []
    for token in TOKENS:
        res = runner.invoke(app, ["save", f"deploy with {token} then restart", "--vault", str(empty_vault)])
        assert res.exit_code != 0 and "secret" in res.output, res.output
        outputs.append(res.output)
        res = runner.invoke(app, ["save", "The bot restarts nightly.", "--title", token, "--vault", str(empty_vault)])
        assert res.exit_code != 0, res.output
        outputs.append(res.output)

    sources = tmp_path / "sources"
    sources.mkdir()
    # a chat history, a folder of notes (one named after the token) and our own export whose
    # note path names the token: an npm token once became a file name this way
    chat = sources / "chat.jsonl"
    chat.write_text(
        "\n".join(
            json.dumps({"conversation": "c1", "speaker": "Ana", "text": f"my npm token is {t}, keep it"})
            for t in TOKENS
        )
        + "\n",
        encoding="utf-8",
    )
    notes = sources / "notes"
    notes.mkdir()
    (notes / f"{NPM}.md").write_text("The release job publishes on Fridays.\n", encoding="utf-8")
    (notes / "Deploy.md").write_text(f"Deploy with {DISCORD} then restart.\n", encoding="utf-8")
    export = sources / "export.jsonl"
    export.write_text(
        json.dumps(
            {
                "text": "The release job publishes the package on Fridays.",
                "frontmatter": f"id: {uuid.uuid4()}\n",
                "path": f"STM/{NPM}.md",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    for fmt, path in (("chat", chat), ("markdown", notes), ("jsonl", export)):
        for extra in (["--dry-run"], [], ["--json"]):
            res = runner.invoke(app, ["import", fmt, str(path), "--vault", str(empty_vault), *extra])
            outputs.append(res.output)
            assert "secret" in res.output or "hidden" in res.output, (fmt, res.output)
    assert memories(empty_vault) == []
    assert_no_trace(tmp_path, *outputs, skip=sources)


def test_mcp_leaves_no_trace(empty_vault, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    svc = make_service(empty_vault)
    texts: list[str] = []

    async def go() -> None:
        async with Client(build_mcp(lambda: svc)) as c:
            for token in TOKENS:
                for args in (
                    {"text": f"the webhook is {token} for alerts"},
                    {"text": "Alerts go to the team channel.", "title": token},
                    {"text": "Alerts go to the team channel.", "tags": [token]},
                ):
                    r = await c.call_tool("save_memory", args, raise_on_error=False)
                    # refused by the gate, or (a 120-character tag) by the schema first: either way, no trace
                    assert r.is_error and ("secret" in r.content[0].text or "too long" in r.content[0].text)
                    texts.append(r.content[0].text)
                r = await c.call_tool(
                    "save_memories", {"items": [{"text": f"key {token} here"}, {"text": "ok", "title": token}]}
                )
                texts.append(json.dumps(r.structured_content))
                assert all("error" in x for x in r.structured_content["results"])

    try:
        asyncio.run(go())
        assert memories(empty_vault) == []
    finally:
        svc.close()
    assert_no_trace(tmp_path, *texts, caplog.text)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_the_http_bridge_leaves_no_trace(empty_vault, tmp_path):
    d = Daemon(empty_vault, tmp_path / "home", **QUIET_LIFECYCLE)
    texts = []
    try:
        d.start()
        for token in TOKENS:
            for route, body in (
                ("/api/save", {"text": f"the key is {token} for the bot"}),
                ("/api/rpc", {"op": "save", "args": {"text": f"the key is {token} for the bot"}}),
                ("/api/rpc", {"op": "save", "args": {"text": "The bot restarts nightly.", "title": token}}),
                ("/api/rpc", {"op": "save", "args": {"text": token}}),
            ):
                resp = d.post(route, body)
                assert resp.status_code == 422 and resp.json()["error"]["code"] == "refused", resp.text
                assert "secret" in resp.json()["error"]["message"]
                texts.append(resp.text)
        assert memories(empty_vault) == []
    finally:
        d.close()
    assert_no_trace(tmp_path, *texts, d.output(), d.log_text())
