"""`mnemovault init DIR`: a new folder is made a vault; an existing one is kept as it is."""

from __future__ import annotations

import json
import subprocess
import sys

from daemon_util import ROOT, child_env, cli


def test_init_creates_a_new_vault_folder(tmp_path):
    target = tmp_path / "Notes" / "Memory"
    out = cli("init", str(target))
    assert out.returncode == 0, out.stderr
    assert all((target / d).is_dir() for d in ("STM", "LTM", "Archive"))
    assert (target / ".mnemovault" / "config.toml").is_file()
    assert f"mnemovault daemon --vault {target}" in " ".join(out.stdout.split())  # rich wraps long lines


def test_init_keeps_an_existing_vault_and_refuses_a_file(tmp_path):
    vault = tmp_path / "vault"
    (vault / ".mnemovault").mkdir(parents=True)
    (vault / ".mnemovault" / "config.toml").write_text("half_life_days = 5.0\n", encoding="utf-8")
    (vault / "Daily.md").write_text("# today\n", encoding="utf-8")
    assert cli("init", str(vault)).returncode == 0
    assert (vault / ".mnemovault" / "config.toml").read_text(encoding="utf-8") == "half_life_days = 5.0\n"
    assert (vault / "Daily.md").read_text(encoding="utf-8") == "# today\n"
    afile = tmp_path / "notes.txt"
    afile.write_text("not a folder", encoding="utf-8")
    out = cli("init", str(afile))
    assert out.returncode != 0 and "not a folder" in out.stderr
    assert afile.read_text(encoding="utf-8") == "not a folder"


def _cli_in(folder, env: dict, *args: str) -> subprocess.CompletedProcess:
    """`python -m bridge.cli ARGS` run in `folder` (no --vault: the working folder decides)."""
    return subprocess.run(
        [sys.executable, "-m", "bridge.cli", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_cli_uses_the_vault_the_working_folder_is_inside(vault, tmp_path):
    """No --vault, no MNEMOVAULT_VAULT, no default in the person's config: a command run in a
    sub-folder of a configured vault uses that vault; outside any vault it says how to name one."""
    env = child_env(MNEMOVAULT_NO_DAEMON="1", PYTHONPATH=str(ROOT))
    env.pop("MNEMOVAULT_VAULT", None)
    init = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "init", str(vault)], env=env, capture_output=True, text=True, timeout=120
    )
    assert init.returncode == 0, init.stderr
    done = _cli_in(vault / "STM", env, "status", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["vault"] == str(vault.resolve())
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    lost = _cli_in(outside, env, "status")
    assert lost.returncode != 0 and "--vault" in lost.stderr


def test_a_command_inside_the_vault_goes_through_its_running_daemon(vault, tmp_path):
    """No --vault and none configured: a command run inside the vault finds the daemon serving
    it (its watcher answers), as it would with --vault; it used to work alone beside it (and a
    search said "start a daemon" while one ran)."""
    from daemon_util import QUIET_LIFECYCLE, Daemon

    assert cli("init", str(vault)).returncode == 0
    d = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        env = {k: v for k, v in d.env.items() if k != "MNEMOVAULT_VAULT"}
        done = _cli_in(vault / "STM", env, "status", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["watcher"] is not None  # answered by the daemon
        found = _cli_in(vault, env, "search", "zzzzqqqq")
        assert found.returncode == 0 and "no memory or note matches" in found.stdout, found.stdout + found.stderr
    finally:
        d.close()
