"""`mnemovault plugin install --vault DIR`: build if needed, copy into .obsidian/plugins/<id>/."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from bridge import plugin_install, resources
from bridge.cli import app
from vault_sync.errors import InvalidInput

REAL_SRC = plugin_install.PLUGIN_SRC
MANIFEST = json.loads((REAL_SRC / "manifest.json").read_text(encoding="utf-8"))
PLUGIN_ID = MANIFEST["id"]


@pytest.fixture
def src(tmp_path, monkeypatch) -> Path:
    """A plugin folder with the real manifest and styles and a built main.js; npm must not run."""
    folder = tmp_path / "plugin-src"
    folder.mkdir()
    shutil.copy2(REAL_SRC / "manifest.json", folder / "manifest.json")
    shutil.copy2(REAL_SRC / "styles.css", folder / "styles.css")
    (folder / "main.js").write_text("module.exports = class Mnemovault {};\n", encoding="utf-8")
    monkeypatch.setattr(plugin_install, "PLUGIN_SRC", folder)

    def no_npm(*args, **kwargs):
        raise AssertionError(f"npm ran although main.js is built: {args}")

    monkeypatch.setattr(plugin_install.subprocess, "run", no_npm)
    return folder


@pytest.fixture
def fake_npm(src, monkeypatch):
    """npm on PATH that records its calls; `npm run build` writes main.js."""
    (src / "main.js").unlink()
    calls: list[tuple[list[str], Path]] = []

    def run(args, cwd=None, check=False, **kwargs):
        calls.append((list(args), Path(cwd)))
        if args[1:] == ["run", "build"]:
            (Path(cwd) / "main.js").write_text("// built\n", encoding="utf-8")
        return subprocess.CompletedProcess(args, 0)

    monkeypatch.setattr(plugin_install.shutil, "which", lambda name: "/opt/node/bin/npm" if name == "npm" else None)
    monkeypatch.setattr(plugin_install.subprocess, "run", run)
    return calls


def test_install_copies_exactly_the_release_assets():
    package = json.loads((REAL_SRC / "package.json").read_text(encoding="utf-8"))
    assert tuple(package["files"]) == plugin_install.FILES
    assert "release" in package["scripts"]


def test_the_real_plugin_folder_has_what_install_copies():
    for name in ("manifest.json", "styles.css"):
        assert (REAL_SRC / name).is_file()
    assert "obsidian" not in PLUGIN_ID and "plugin" not in PLUGIN_ID
    assert MANIFEST["isDesktopOnly"] is True


def test_cli_copies_the_three_files_into_the_vaults_plugin_folder(src, empty_vault):
    result = CliRunner().invoke(app, ["plugin", "install", "--vault", str(empty_vault)])
    assert result.exit_code == 0, result.output
    target = empty_vault / ".obsidian" / "plugins" / PLUGIN_ID
    assert sorted(p.name for p in target.iterdir()) == ["main.js", "manifest.json", "styles.css"]
    for name in ("main.js", "manifest.json", "styles.css"):
        assert (target / name).read_bytes() == (src / name).read_bytes()
    assert "installed into" in result.output


def test_reinstall_replaces_the_old_files_and_keeps_the_plugins_data(src, empty_vault):
    target = plugin_install.install_plugin(empty_vault)
    (target / "data.json").write_text('{"curveHorizonDays": 14}', encoding="utf-8")
    (src / "main.js").write_text("// version 2\n", encoding="utf-8")
    assert plugin_install.install_plugin(empty_vault) == target
    assert (target / "main.js").read_text(encoding="utf-8") == "// version 2\n"
    assert (target / "data.json").read_text(encoding="utf-8") == '{"curveHorizonDays": 14}'


@pytest.mark.parametrize("planted", ["main.js", "folder"])
def test_a_link_planted_in_the_plugin_folder_is_refused_and_nothing_outside_changes(
    src, empty_vault, tmp_path, planted
):
    """The vault syncs: a peer may plant a link where the install writes (issue 38)."""
    import os

    from vault_sync.errors import UnsafePath

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "main.js").write_bytes(b"mine\n")
    os.utime(outside / "main.js", ns=(1_600_000_000_000_000_000,) * 2)
    plugins = empty_vault / ".obsidian" / "plugins"
    plugins.mkdir(parents=True)
    if planted == "folder":
        (plugins / PLUGIN_ID).symlink_to(outside, target_is_directory=True)
    else:
        (plugins / PLUGIN_ID).mkdir()
        (plugins / PLUGIN_ID / "main.js").symlink_to(outside / "main.js")
    with pytest.raises(UnsafePath, match="symbolic link"):
        plugin_install.install_plugin(empty_vault)
    assert sorted(p.name for p in outside.iterdir()) == ["main.js"]
    assert (outside / "main.js").read_bytes() == b"mine\n"
    assert os.stat(outside / "main.js").st_mtime_ns == 1_600_000_000_000_000_000


def test_builds_with_npm_when_main_js_is_missing(fake_npm, src, empty_vault):
    target = plugin_install.install_plugin(empty_vault)
    assert fake_npm == [
        (["/opt/node/bin/npm", "ci", "--no-audit", "--no-fund"], src),
        (["/opt/node/bin/npm", "run", "build"], src),
    ]
    assert (target / "main.js").read_text(encoding="utf-8") == "// built\n"


def test_skips_npm_ci_when_dependencies_are_installed(fake_npm, src, empty_vault):
    (src / "node_modules").mkdir()
    plugin_install.install_plugin(empty_vault)
    assert [args[1:] for args, _ in fake_npm] == [["run", "build"]]


def test_without_npm_it_says_how_to_build_and_installs_nothing(src, empty_vault, monkeypatch):
    (src / "main.js").unlink()
    monkeypatch.setattr(plugin_install.shutil, "which", lambda name: None)
    result = CliRunner().invoke(app, ["plugin", "install", "--vault", str(empty_vault)])
    assert result.exit_code != 0
    assert "npm is not installed" in result.output
    assert not (empty_vault / ".obsidian").exists()


def test_a_failed_build_is_a_clean_error(fake_npm, src, empty_vault, monkeypatch):
    def failing(args, cwd=None, check=False, **kwargs):
        raise subprocess.CalledProcessError(2, args)

    monkeypatch.setattr(plugin_install.subprocess, "run", failing)
    with pytest.raises(InvalidInput, match="building the plugin failed"):
        plugin_install.install_plugin(empty_vault)
    assert not (empty_vault / ".obsidian").exists()


def test_a_build_without_main_js_is_a_clean_error(fake_npm, src, empty_vault, monkeypatch):
    monkeypatch.setattr(plugin_install.subprocess, "run", lambda args, **kw: subprocess.CompletedProcess(args, 0))
    with pytest.raises(InvalidInput, match="did not produce"):
        plugin_install.install_plugin(empty_vault)


def test_missing_plugin_sources(tmp_path, empty_vault, monkeypatch):
    monkeypatch.setattr(plugin_install, "PLUGIN_SRC", tmp_path / "nowhere")
    with pytest.raises(InvalidInput, match="plugin sources not found"):
        plugin_install.install_plugin(empty_vault)


def test_a_vault_that_is_not_a_folder(src, tmp_path):
    result = CliRunner().invoke(app, ["plugin", "install", "--vault", str(tmp_path / "missing")])
    assert result.exit_code != 0
    assert "not a folder" in result.output


@pytest.fixture
def packaged(tmp_path, monkeypatch) -> Path:
    """An installed copy: the release assets as package data (bridge/data/obsidian-plugin/);
    neither a checkout nor npm is there."""
    site = tmp_path / "site-packages" / "bridge"
    folder = site / "data" / "obsidian-plugin"
    folder.mkdir(parents=True)
    shutil.copy2(REAL_SRC / "manifest.json", folder / "manifest.json")
    shutil.copy2(REAL_SRC / "styles.css", folder / "styles.css")
    (folder / "main.js").write_text("// the released build\n", encoding="utf-8")
    # bridge/resources.py's importlib.resources only: the package's files are those of `site`
    monkeypatch.setattr(resources, "resources", SimpleNamespace(files=lambda package: {"bridge": site}[package]))
    monkeypatch.setattr(plugin_install, "PLUGIN_SRC", tmp_path / "no-checkout")

    def no_npm(*args, **kwargs):
        raise AssertionError(f"npm ran in an installed copy: {args}")

    monkeypatch.setattr(plugin_install.subprocess, "run", no_npm)
    return folder


def test_a_checkout_has_no_package_data_and_uses_its_folders():
    assert resources.packaged("obsidian-plugin") is None and resources.packaged("sample-vault") is None
    assert resources.sample_vault() == resources.CHECKOUT / "sample-vault"
    assert plugin_install.PLUGIN_SRC == resources.CHECKOUT / "obsidian-plugin"


def test_an_installed_copy_installs_its_packaged_plugin(packaged, empty_vault):
    result = CliRunner().invoke(app, ["plugin", "install", "--vault", str(empty_vault)])
    assert result.exit_code == 0, result.output
    target = empty_vault / ".obsidian" / "plugins" / PLUGIN_ID
    for name in plugin_install.FILES:
        assert (target / name).read_bytes() == (packaged / name).read_bytes()


def test_an_installed_copy_without_the_built_plugin_says_so(packaged, empty_vault):
    (packaged / "main.js").unlink()
    result = CliRunner().invoke(app, ["plugin", "install", "--vault", str(empty_vault)])
    assert result.exit_code != 0
    assert "carries no built plugin (main.js missing" in result.output and "from a release" in result.output
    assert not (empty_vault / ".obsidian").exists()


def test_an_installed_copy_finds_its_packaged_sample_vault(packaged):
    sample = packaged.parent / "sample-vault"
    sample.mkdir()
    assert resources.sample_vault() == sample
