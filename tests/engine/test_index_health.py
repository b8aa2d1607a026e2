"""A damaged index is found, reported and repaired from the vault, never fatal: each derived
table (word index, trigram index, conversation windows, vectors) and the file itself damaged
for real, then searched through the CLI and a real daemon, and rebuilt with `sync --rebuild`."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from conftest import index_dump, rebuild_dump
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, cli, index_path_of

STAGING = "STM/Staging runs Postgres 16.md"
QUERIES = {"postgres": STAGING, "部署流程": "STM/部署流程.md", "glad festival": "STM/Turn two.md"}
VECTOR = ("a" * 64, "test-model", bytes(range(16)))


def _garbage(table: str) -> str:
    # keep the averages (id 1) and structure (id 10) records: damage the segments themselves
    return f"UPDATE {table}_data SET block = randomblob(length(block)) WHERE id > 10"


SQL_DAMAGE = {
    "fts_data": _garbage("fts"),
    "fts_content": "DELETE FROM fts_content WHERE rowid % 2 = 0",
    "fts_config": "UPDATE fts_config SET v = 99 WHERE k = 'version'",  # SQLite cannot even drop the table
    "trigram_data": _garbage("trigram"),
    "windows_data": _garbage("windows"),
    # dropped by hand or by a tool: missing tables are made anew, by the open, `sync` or a daemon
    "fts_dropped": "DROP TABLE fts",
    "trigram_dropped": "DROP TABLE trigram",
    "windows_dropped": "DROP TABLE windows",
}
FILE_DAMAGE = ("notes_page", "embeddings_page", "truncated")


def add_notes(vault: Path) -> None:
    """A note in a script the trigram index holds, and a conversation (windows)."""
    (vault / "STM" / "部署流程.md").write_text("# 部署流程\n\n部署流程的笔记：先备份数据库。\n", encoding="utf-8")
    for i, (text, at) in enumerate(
        (("How do you feel about the dance festival?", "10:00"), ("Yeah, glad to be part of it!", "10:01"))
    ):
        (vault / "STM" / f"Turn {['one', 'two'][i]}.md").write_text(
            f"---\nconversation: chat-1\nsaid_at: 2026-11-19T{at}:00Z\n---\n{text}\n", encoding="utf-8"
        )


def page_of(index: Path, table: str) -> tuple[int, int]:
    db = sqlite3.connect(index)
    try:
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    finally:
        db.close()
    return root, size


def damage(index: Path, how: str) -> None:
    if how in SQL_DAMAGE:
        db = sqlite3.connect(index)
        db.execute(SQL_DAMAGE[how])
        db.commit()
        db.close()
        return
    if how == "truncated":
        with open(index, "r+b") as f:
            f.truncate(index.stat().st_size * 2 // 3)
        return
    root, size = page_of(index, "notes" if how == "notes_page" else "embeddings")
    with open(index, "r+b") as f:  # scribble over the table's root page, past its header
        f.seek((root - 1) * size + 8)
        f.write(os.urandom(size - 16))


def searched(args_env: dict, vault: Path) -> dict[str, list[str]]:
    out = {}
    for query in QUERIES:
        r = cli("search", query, "--vault", str(vault), "--json", env=args_env)
        assert r.returncode == 0, (query, r.stderr)
        out[query] = [hit["path"] for hit in json.loads(r.stdout)["results"]]
    return out


@pytest.fixture
def setup(vault, tmp_path):
    add_notes(vault)
    home = tmp_path / "home"
    env = child_env(home, MNEMOVAULT_NO_DAEMON="1")
    index = index_path_of(home, vault)
    assert cli("sync", "--vault", str(vault), env=env).returncode == 0
    db = sqlite3.connect(index)
    db.execute("INSERT INTO embeddings VALUES (?, ?, ?)", VECTOR)
    db.commit()
    db.close()
    expected = searched(env, vault)
    for query, path in QUERIES.items():
        assert path in expected[query][:2], (query, expected)
    return vault, home, env, index, expected


def vectors(index: Path) -> list[tuple]:
    db = sqlite3.connect(index)
    try:
        return [tuple(r) for r in db.execute("SELECT content_hash, model, vector FROM embeddings")]
    finally:
        db.close()


@pytest.mark.parametrize("how", [*SQL_DAMAGE, *FILE_DAMAGE])
def test_damage_is_repaired_at_open_and_search_answers(setup, how):
    vault, home, env, index, expected = setup
    damage(index, how)
    assert searched(env, vault) == expected
    # repaired by the first command; a later one's status says so
    repair = json.loads(cli("status", "--json", "--vault", str(vault), env=env).stdout)["index_repair"]
    assert repair["damaged"] == ([how.split("_")[0]] if how in SQL_DAMAGE else ["file"]), repair
    assert repair["remade"] == ("tables" if how in SQL_DAMAGE and how != "fts_config" else "file"), repair
    assert index_dump(index) == rebuild_dump(vault)
    if how in ("fts_config", "notes_page", "truncated"):
        assert list(index.parent.glob("*.corrupt-*")), "the damaged file was set aside"
    if how in SQL_DAMAGE:
        assert vectors(index) == [VECTOR], "the vector cache survives when it is whole"


@pytest.mark.parametrize("how", [*SQL_DAMAGE, *FILE_DAMAGE])
def test_sync_rebuild_always_works(setup, how):
    vault, home, env, index, expected = setup
    damage(index, how)
    r = cli("sync", "--rebuild", "--json", "--vault", str(vault), env=env)
    assert r.returncode == 0, r.stderr
    assert index_dump(index) == rebuild_dump(vault)
    assert searched(env, vault) == expected


def test_a_daemon_repairs_damage_found_at_start_and_met_while_serving(setup, tmp_path):
    vault, home, env, index, expected = setup
    damage(index, "fts_data")
    d = Daemon(vault, home, **QUIET_LIFECYCLE).start()
    try:

        def over_http(query: str) -> list[str]:
            r = d.get("/api/search", params={"q": query})
            assert r.status_code == 200, r.text
            return [hit["path"] for hit in r.json()["results"]]

        assert {q: over_http(q) for q in QUERIES} == expected
        repair = d.status()["index_repair"]
        assert (
            repair and repair["damaged"] == ["fts"] and "opened" in repair["reason"]
        )  # a small index: checked at open
        assert "damage in fts" in d.log_text()

        # damage while it serves: the search meets it, the index is repaired, the search answers
        for table in ("windows_data", "trigram_data", "fts_data"):
            damage(index, table)
            assert {q: over_http(q) for q in QUERIES} == expected, table
            repair = d.status()["index_repair"]
            assert repair["damaged"] == [table.split("_")[0]] and "met by search" in repair["reason"], repair
        assert index_dump(index) == rebuild_dump(vault)
        shown = cli("status", "--vault", str(vault), env=d.env)
        assert "index repaired" in shown.stdout, shown.stdout + shown.stderr
    finally:
        d.close()


def test_a_big_index_is_checked_fully_when_asked(vault, monkeypatch):
    """Past CHECK_AT_OPEN_NOTES opening skips the full-text checks; the full check a daemon
    runs at start (check_index) finds and repairs the damage."""
    from conftest import make_service

    from vault_sync.index import health

    add_notes(vault)
    svc = make_service(vault)
    path = svc.store.path
    svc.close()
    damage(path, "windows_data")
    monkeypatch.setattr(health, "CHECK_AT_OPEN_NOTES", 10)
    svc = make_service(vault, sync=False, index_path=path)
    try:
        assert svc.store.last_repair is None, "opening a big index does not read every table"
        repair = svc.check_index("found when the daemon started")
        assert repair and repair["damaged"] == ["windows"] and repair["remade"] == "tables"
        assert svc.store.canonical_dump() == rebuild_dump(vault)
        assert [h["path"] for h in svc.search("glad festival")["results"]][:1] == ["STM/Turn two.md"]
        assert svc.check_index("again") is None  # whole now
    finally:
        svc.close()


@pytest.mark.parametrize("table", ["fts", "trigram", "windows", "tags"])
def test_sync_finds_a_dropped_table_the_open_did_not_see(vault, table):
    """A table dropped while the index is open (the open's check already ran): `sync` checks
    the whole index, makes the table anew and reads the vault into it; its report says so."""
    from conftest import make_service

    add_notes(vault)
    svc = make_service(vault)
    try:
        with svc.store.lock:
            svc.store.db.execute(f"DROP TABLE {table}")
        report = svc.sync(check=True)
        assert report["index_repair"]["damaged"] == [table] and report["index_repair"]["remade"] == "tables"
        assert "found by sync" in report["index_repair"]["reason"]
        assert svc.store.canonical_dump() == rebuild_dump(vault)
        assert [h["path"] for h in svc.search("部署流程")["results"]][:1] == ["STM/部署流程.md"]
        assert svc.sync(check=True)["index_repair"] is None  # whole now
    finally:
        svc.close()


def test_a_table_dropped_while_a_daemon_serves_is_met_and_repaired(setup):
    """Dropped before the daemon starts (its start repairs it) and while it serves (a search
    meets 'no such table', which is damage: repaired, and the search answers)."""
    vault, home, env, index, expected = setup
    damage(index, "fts_dropped")
    damage(index, "trigram_dropped")
    d = Daemon(vault, home, **QUIET_LIFECYCLE).start()
    try:
        r = d.get("/api/search", params={"q": "postgres"})
        assert r.status_code == 200, r.text
        assert [hit["path"] for hit in r.json()["results"]] == expected["postgres"]
        assert set(d.status()["index_repair"]["damaged"]) == {"fts", "trigram"}
        damage(index, "fts_dropped")
        r = d.get("/api/search", params={"q": "postgres"})
        assert r.status_code == 200, r.text
        assert [hit["path"] for hit in r.json()["results"]] == expected["postgres"]
        repair = d.status()["index_repair"]
        assert repair["damaged"] == ["fts"] and "met by search" in repair["reason"], repair
        cli_sync = cli("sync", "--json", "--vault", str(vault), env=d.env)
        assert cli_sync.returncode == 0, cli_sync.stderr
        assert index_dump(index) == rebuild_dump(vault)
    finally:
        d.close()
