"""The daemon as a real subprocess on a temp vault: live sync seen through the bridge, a
clean SIGTERM stop with the index intact, one daemon per vault, CLI through the daemon."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from conftest import index_dump, rebuild_dump
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, cli, wait_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

STAGING = "STM/Staging runs Postgres 16.md"


def test_lifecycle_edit_seen_then_sigterm_stops_cleanly_with_index_intact(daemon, vault):
    bfile = daemon.bridge
    assert oct(bfile.stat().st_mode & 0o777) == "0o600"
    info = json.loads(bfile.read_text(encoding="utf-8"))
    assert info["pid"] == daemon.proc.pid and isinstance(info["port"], int) and len(info["token"]) >= 32
    assert Path(info["vault"]) == vault.resolve()

    before = daemon.get("/api/note", params={"path": STAGING}).json()
    assert before["use_count"] == 1
    path = vault / STAGING
    path.write_text(path.read_text(encoding="utf-8").replace("use_count: 1", "use_count: 4"), encoding="utf-8")
    seen = wait_for(lambda: daemon.get("/api/note", params={"path": STAGING}).json()["use_count"] == 4)
    assert seen, "the daemon's watcher did not pick up the edit"
    (vault / "Projects" / "New idea.md").write_text(
        "# New idea\n\nA fresh note written while the daemon runs.\n", encoding="utf-8"
    )
    assert wait_for(lambda: daemon.get("/api/note", params={"path": "Projects/New idea.md"}).status_code == 200)

    assert daemon.stop() == 0
    log = (daemon.home / "logs" / "mnemovault.log").read_text(encoding="utf-8")
    assert "stopped cleanly" in log
    assert "stopped cleanly" in daemon.output()  # the log goes to stderr too
    assert not bfile.exists()

    assert index_dump(daemon.index_path) == rebuild_dump(vault)


def test_scheduled_lifecycle_archives_forgotten_memories(vault, tmp_path):
    d = Daemon(
        vault,
        tmp_path / "daemon-home",
        **{**QUIET_LIFECYCLE, "MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS": "0.5", "MNEMOVAULT_AUTO_GC": "true"},
    )
    try:
        d.start()
        forgotten = "STM/Office printer needs the IPP driver.md"  # far below the forget threshold
        archived = "Archive/Office printer needs the IPP driver.md"
        assert wait_for(lambda: not (vault / forgotten).exists(), timeout=30), d.output()
        assert (vault / archived).exists()
        # the rename is only the move's first step: its frontmatter patch and the index sync
        # follow (one change, writes.together), so the daemon is asked until the move is done
        # (reading right after the rename raced it: 404, KeyError 'status')

        def answer() -> dict:
            resp = d.get("/api/note", params={"path": archived})
            return resp.json() if resp.status_code == 200 else {"status": f"HTTP {resp.status_code}"}

        assert wait_for(lambda: answer()["status"] == "archived", timeout=30), answer()
        assert "status: archived" in (vault / archived).read_text(encoding="utf-8")
        assert d.stop() == 0
    finally:
        d.close()


def test_sigterm_with_an_open_event_stream(daemon):
    with httpx.Client(timeout=10) as client:
        with client.stream("GET", daemon.url + "/api/events", headers=daemon.auth) as resp:
            assert resp.status_code == 200
            next(resp.iter_lines())  # the stream is open
            assert daemon.stop(timeout=30) == 0
    assert "stopped cleanly" in daemon.output()


def test_second_daemon_on_the_same_vault_is_refused(daemon, vault):
    second = cli("daemon", "--vault", str(vault), env=daemon.env, timeout=60)
    assert second.returncode != 0
    assert f"pid {daemon.proc.pid}" in second.stderr and "already serves this vault" in second.stderr
    assert daemon.proc.poll() is None  # the first one is untouched
    assert json.loads(daemon.bridge.read_text(encoding="utf-8"))["pid"] == daemon.proc.pid


def test_cli_goes_through_the_running_daemon(daemon, vault, tmp_path):
    # the CLI gets a data dir it cannot use: it can only answer through the daemon
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("", encoding="utf-8")
    env = {**daemon.env, "MNEMOVAULT_DATA_DIR": str(blocker / "data")}
    out = cli("touch", STAGING, "--vault", str(vault), "--json", env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 2
    assert daemon.get("/api/note", params={"path": STAGING}).json()["use_count"] == 2

    search = cli("search", "postgres", "--vault", str(vault), "--json", env={**env, "MNEMOVAULT_EMBEDDINGS": "true"})
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["results"][0]["path"] == STAGING
    assert "full text only" not in search.stderr  # the daemon answers with whatever it has loaded

    err = cli("touch", "no-such-memory", "--vault", str(vault), env=env)
    assert err.returncode == 4 and "no note with id or path" in err.stderr

    # the same CLI without the daemon fails on that data dir: the answers above were the daemon's
    direct = cli("touch", STAGING, "--vault", str(vault), env={**env, "MNEMOVAULT_NO_DAEMON": "1"})
    assert direct.returncode != 0


def test_cli_search_without_a_daemon_answers_from_full_text_without_the_model(vault):
    # meaning search on (the default): one query must not load the model; the notice says how
    env = child_env(MNEMOVAULT_NO_DAEMON="1", MNEMOVAULT_EMBEDDINGS="true")
    code = (
        "import sys\nfrom bridge.cli import app\n"
        "try:\n    app(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('model imported:', 'sentence_transformers' in sys.modules, file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "search", "postgres", "--vault", str(vault), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(Path(__file__).resolve().parents[2]),
    )
    assert out.returncode == 0, out.stderr
    assert STAGING in [r["path"] for r in json.loads(out.stdout)["results"]]
    assert "model imported: False" in out.stderr
    assert "full text only" in out.stderr and "mnemovault daemon" in out.stderr

    off = cli("search", "postgres", "--vault", str(vault), "--json", env=child_env(MNEMOVAULT_NO_DAEMON="1"))
    assert off.returncode == 0 and "full text only" not in off.stderr  # meaning search off: nothing to say


def test_cli_save_without_a_daemon_writes_and_indexes_without_the_model(vault):
    # meaning search on: the save is written and indexed at once, the model never imported
    env = child_env(MNEMOVAULT_NO_DAEMON="1", MNEMOVAULT_EMBEDDINGS="true")
    code = (
        "import sys\nfrom bridge.cli import app\n"
        "try:\n    app(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('model imported:', 'sentence_transformers' in sys.modules, file=sys.stderr)\n"
    )
    text = "The kiln in the garden studio fires at cone six on Thursdays."
    out = subprocess.run(
        [sys.executable, "-c", code, "save", text, "--vault", str(vault), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(Path(__file__).resolve().parents[2]),
    )
    assert out.returncode == 0, out.stderr
    saved = json.loads(out.stdout)["note"]["path"]
    assert (vault / saved).read_text(encoding="utf-8").rstrip().endswith(text)
    assert "model imported: False" in out.stderr
    assert "without the embedding model" in out.stderr and "mnemovault daemon" in out.stderr
    found = cli("search", "kiln cone six", "--vault", str(vault), "--json", env=env)
    assert found.returncode == 0 and json.loads(found.stdout)["results"][0]["path"] == saved  # indexed at once

    off = cli(
        "save", "Another fact about the kiln shelves.", "--vault", str(vault), env=child_env(MNEMOVAULT_NO_DAEMON="1")
    )
    assert off.returncode == 0 and "embedding model" not in off.stderr  # meaning search off: nothing to say


def test_cli_works_directly_without_a_daemon(vault):
    env = child_env(MNEMOVAULT_NO_DAEMON="1")
    out = cli("touch", STAGING, "--vault", str(vault), "--json", env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 2
    assert "use_count: 2" in (vault / STAGING).read_text(encoding="utf-8")
    # and with no daemon at all (no bridge file), the same
    out = cli("touch", STAGING, "--vault", str(vault), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 3


def test_cli_ignores_a_stale_bridge_file(vault):
    from bridge.paths import bridge_file, private_write

    # a bridge file left by a daemon that died: pid of a finished process, a closed port
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    private_write(bridge_file(vault), json.dumps({"port": 9, "token": "x" * 40, "pid": dead.pid, "vault": str(vault)}))
    out = cli("touch", STAGING, "--vault", str(vault), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note"]["use_count"] == 2
