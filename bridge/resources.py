"""The files the commands copy: the sample vault (`demo`) and the Obsidian plugin's release
assets (`plugin install`). An installed wheel carries them as package data in
mnemovault/bridge/data/ (pyproject.toml maps them there); a checkout has them beside the source tree."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .paths import module

CHECKOUT = Path(__file__).resolve().parent.parent


def packaged(name: str) -> Path | None:
    """bridge/data/<name> of an installed copy; None in a checkout (or a zipped install,
    whose files cannot be copied as folders)."""
    folder = resources.files(module("bridge")).joinpath("data", name)
    return folder if isinstance(folder, Path) and folder.is_dir() else None


def sample_vault() -> Path:
    return packaged("sample-vault") or CHECKOUT / "sample-vault"
