"""`mnemovault init DIR`: a new folder is made a vault; an existing one is kept as it is."""

from __future__ import annotations

from daemon_util import cli


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
