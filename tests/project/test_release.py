"""One version from pyproject.toml everywhere (CLI, MCP serverInfo, plugin manifest, the
repository-root copies BRAT reads, the changelog); the release script that keeps the plugin's
files equal to it; dependency ranges with the tested set in .ci/constraints.txt."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import re
import shutil
import subprocess
import tomllib

import pytest
from conftest import ROOT
from fastmcp import Client
from typer.testing import CliRunner

from bridge import version as version_module
from bridge.cli import app
from bridge.mcp_server import build_mcp

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
VERSION = PROJECT["version"]
PLUGIN = ROOT / "obsidian-plugin"
RELEASE_FILES = (
    "package.json",
    "package-lock.json",
    "manifest.json",
    "versions.json",
    "scripts/release.mjs",
    "scripts/zip.mjs",
)


def read_json(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_plugin_carries_the_projects_version():
    manifest = read_json(PLUGIN / "manifest.json")
    assert manifest["version"] == VERSION
    assert read_json(PLUGIN / "package.json")["version"] == VERSION
    lock = read_json(PLUGIN / "package-lock.json")
    assert lock["version"] == VERSION and lock["packages"][""]["version"] == VERSION
    assert read_json(PLUGIN / "versions.json")[VERSION] == manifest["minAppVersion"]


def test_the_root_manifest_and_versions_equal_the_plugins():
    # BRAT and the community directory read these two at the repository root
    for name in ("manifest.json", "versions.json"):
        assert (ROOT / name).read_bytes() == (PLUGIN / name).read_bytes(), (
            f"run `npm run release -- --versions` in obsidian-plugin/ ({name})"
        )


def test_cli_version_and_the_changelog_name_it():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"mnemovault {VERSION}"
    assert re.search(rf"^## {re.escape(VERSION)}\b", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)


def test_mcp_server_info_is_mnemovaults_version():
    async def info():
        async with Client(build_mcp(lambda: None)) as c:
            current = c.server_info
        async with Client(build_mcp(lambda: None), mode="legacy") as c:  # the initialize handshake
            handshake = c.initialize_result.server_info
        return current, handshake

    for server in asyncio.run(info()):
        assert (server.name, server.version) == ("mnemovault", VERSION)


def test_version_prefers_the_checkouts_pyproject_then_the_metadata(tmp_path, monkeypatch):
    mine = tmp_path / "pyproject.toml"
    mine.write_text('[project]\nname = "mnemovault"\nversion = "7.1.0"\n', encoding="utf-8")
    monkeypatch.setattr(version_module, "PYPROJECT", mine)
    version_module.version.cache_clear()
    try:
        assert version_module.version() == "7.1.0"
        mine.write_text(
            '[project]\nname = "another"\nversion = "1.0.0"\n', encoding="utf-8"
        )  # not ours: the metadata's
        version_module.version.cache_clear()
        monkeypatch.setattr(importlib.metadata, "version", lambda dist: {"mnemovault": "6.0.0"}[dist])
        assert version_module.version() == "6.0.0"
        monkeypatch.setattr(version_module, "PYPROJECT", tmp_path / "absent.toml")  # an installed wheel
        version_module.version.cache_clear()
        assert version_module.version() == "6.0.0"
    finally:
        version_module.version.cache_clear()


def test_dependencies_are_ranges_and_the_tested_set_pins_them():
    pinned = [d for d in PROJECT["dependencies"] if "==" in d]
    assert pinned == []
    constraints = {}
    for line in (ROOT / ".ci" / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, ver = line.partition("==")
            constraints[re.sub(r"[-_.]+", "-", name.lower())] = ver
    names = [re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", d).group(0).lower()) for d in PROJECT["dependencies"]]
    assert [n for n in names if n not in constraints] == []
    assert constraints["torch"] == "2.13.0"  # the local CPU build, never a CUDA one


@pytest.mark.skipif(shutil.which("node") is None, reason="the release script runs on Node")
def test_release_script_writes_the_projects_version_into_the_plugin_and_the_root(tmp_path):
    repo = tmp_path / "repo"
    for name in RELEASE_FILES:
        (repo / "obsidian-plugin" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PLUGIN / name, repo / "obsidian-plugin" / name)
    old = read_json(PLUGIN / "versions.json")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (repo / "pyproject.toml").write_text(
        text.replace(f'version = "{VERSION}"', 'version = "9.8.7"', 1), encoding="utf-8"
    )
    script = repo / "obsidian-plugin" / "scripts" / "release.mjs"

    done = subprocess.run(["node", str(script), "--versions"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "9.8.7" in done.stdout
    plugin = repo / "obsidian-plugin"
    manifest = read_json(plugin / "manifest.json")
    assert manifest["version"] == "9.8.7" and read_json(plugin / "package.json")["version"] == "9.8.7"
    lock = read_json(plugin / "package-lock.json")
    assert lock["version"] == "9.8.7" and lock["packages"][""]["version"] == "9.8.7"
    assert read_json(plugin / "versions.json") == {**old, "9.8.7": manifest["minAppVersion"]}  # earlier releases kept
    for name in ("manifest.json", "versions.json"):
        assert (repo / name).read_bytes() == (plugin / name).read_bytes()
    assert (plugin / "manifest.json").read_text(encoding="utf-8").startswith("{\n\t")  # Obsidian's tab indentation kept

    again = subprocess.run(["node", str(script), "--versions"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and again.stdout == ""  # nothing left to change

    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    broken = subprocess.run(["node", str(script), "--versions"], capture_output=True, text=True, timeout=60)
    assert broken.returncode != 0 and "no [project] version" in broken.stderr
