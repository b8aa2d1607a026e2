"""Copy the built Obsidian plugin into a vault: the release assets an installed wheel carries,
or, in a checkout, obsidian-plugin/ (built with npm first if main.js is missing)."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

from vault_sync.errors import InvalidInput
from vault_sync.service import replace_file
from vault_sync.settings import load_settings

from . import resources

PLUGIN_SRC = resources.CHECKOUT / "obsidian-plugin"
# Exactly the release assets: obsidian-plugin/package.json "files", which `npm run release` ships.
FILES = ("main.js", "manifest.json", "styles.css")


def install_plugin(vault: Path | None) -> Path:
    root = load_settings(vault=vault).vault_path()
    source = resources.packaged("obsidian-plugin")
    if source is not None:
        missing = [name for name in FILES if not (source / name).is_file()]
        if missing:
            raise InvalidInput(
                f"this installation carries no built plugin ({', '.join(missing)} missing in {source}); "
                "install the plugin from a release instead"
            )
    else:
        source = _checkout_build()
    manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    folder = f".obsidian/plugins/{manifest['id']}"
    for name in FILES:  # never written through a link planted in the vault (safe_files)
        data = (source / name).read_bytes()
        replace_file(root, f"{folder}/{name}", data, stat.S_IMODE((source / name).stat().st_mode) | 0o600)
    return root / folder


def _checkout_build() -> Path:
    """obsidian-plugin/ of a checkout, with main.js built if it is not yet."""
    if not (PLUGIN_SRC / "manifest.json").is_file():
        raise InvalidInput(f"plugin sources not found at {PLUGIN_SRC}")
    if not (PLUGIN_SRC / "main.js").is_file():
        npm = shutil.which("npm")  # the full path: on Windows it is npm.cmd, which a bare "npm" misses
        if npm is None:
            raise InvalidInput(
                "main.js is not built and npm is not installed; run `make plugin` where Node is available"
            )
        if not (PLUGIN_SRC / "node_modules").is_dir():
            _npm([npm, "ci", "--no-audit", "--no-fund"])
        _npm([npm, "run", "build"])
        if not (PLUGIN_SRC / "main.js").is_file():
            raise InvalidInput(f"`npm run build` did not produce {PLUGIN_SRC / 'main.js'}")
    return PLUGIN_SRC


def _npm(args: list[str]) -> None:
    try:
        subprocess.run(args, cwd=PLUGIN_SRC, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise InvalidInput(f"building the plugin failed ({' '.join(args[1:])}): {exc}") from None
