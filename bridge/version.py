"""mnemovault's one version: `version` in pyproject.toml. The CLI's --version, the MCP
server's serverInfo, the bridge's status and the plugin's manifest all show it."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

DIST = "mnemovault"
# beside the source tree in a checkout; absent in an installed wheel
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@cache
def version() -> str:
    """A checkout reads its pyproject.toml (an editable install's metadata keeps the version
    it was installed with); an installed copy reads its package metadata."""
    try:
        project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8")).get("project", {})
    except (OSError, ValueError):
        project = {}
    if project.get("name") == DIST and isinstance(project.get("version"), str):
        return str(project["version"])
    from importlib import metadata  # an installed copy only: ~10 ms of a daemon's start otherwise

    try:
        return metadata.version(DIST)
    except metadata.PackageNotFoundError:
        return "0+unknown"
