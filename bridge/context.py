"""The composition root for CLI commands: settings are read here and nowhere else."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from vault_sync.errors import IndexReadOnly
from vault_sync.service import IndexStore, MemoryService
from vault_sync.settings import load_settings

from .paths import config_dir


def quiet_libraries() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")


def meaning_search_on(vault: Path | None) -> bool:
    return load_settings(vault=vault).embeddings


@contextmanager
def open_service(
    vault: Path | None, initial_sync: bool = True, read_only_index_ok: bool = False, **overrides: Any
) -> Iterator[MemoryService]:
    """`read_only_index_ok`: an index file this user cannot write is replaced, for this one
    command, by one made in memory from the vault (said on stderr): the command still answers
    and writes the vault as usual; the index catches up once it can be written again."""
    quiet_libraries()
    settings = load_settings(vault=vault, **overrides)
    settings.vault_path()
    try:
        svc = MemoryService(settings)
    except IndexReadOnly as exc:
        if not read_only_index_ok:
            raise
        print(f"mnemovault: {exc}; this command reads the vault into a temporary index", file=sys.stderr)
        svc = MemoryService(settings, store=IndexStore(":memory:"))
        initial_sync = True
    svc.runtime.know_device(config_dir())  # uses made here are recorded as this device's
    try:
        if initial_sync:
            svc.sync()  # the no-change path is cheap; results must reflect the vault as it is
        yield svc
    finally:
        svc.close()
