"""An index file this user cannot write (issue 38): one clear message, never a traceback; CLI
commands still answer from an index made in memory from the vault, the daemon refuses to start.

As root, file modes stop nothing: the file is made immutable (chattr +i), which SQLite meets
as a read-only file whoever runs it."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from daemon_util import child_env, cli


def _immutable(path, on: bool) -> bool:
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True).returncode == 0


@pytest.fixture
def locked_index(vault, tmp_path):
    env = child_env(tmp_path / "home")
    assert cli("sync", "--vault", str(vault), env=env).returncode == 0
    (index,) = (tmp_path / "home" / "data" / "indexes").glob("*.sqlite3")
    if not _immutable(index, True):
        pytest.skip("chattr +i is not allowed here (not root, or the file system has no such flag)")
    try:
        yield vault, env, index
    finally:
        _immutable(index, False)


def test_a_read_only_index_gives_one_clear_message_and_search_still_answers(locked_index):
    vault, env, index = locked_index
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    found = cli("search", "what runs staging", "--vault", str(vault), "--json", env=env)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["path"] == "STM/Staging runs Postgres 16.md"
    assert str(index) in found.stderr and "cannot be written" in found.stderr
    assert "Traceback" not in found.stderr

    status = cli("status", "--vault", str(vault), "--json", env=env)
    assert status.returncode == 0 and json.loads(status.stdout)["counts"]["stm"] == 31, status.stderr

    daemon = cli("daemon", "--vault", str(vault), env=env)
    assert daemon.returncode == 7, daemon.stdout + daemon.stderr
    assert "cannot be written" in daemon.stderr and "Traceback" not in daemon.stderr
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
