"""The composition root for CLI commands: settings are read here and nowhere else."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from vault_sync.service import MemoryService
from vault_sync.settings import load_settings


def quiet_libraries() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")


def meaning_search_on(vault: Path | None) -> bool:
    return load_settings(vault=vault).embeddings


@contextmanager
def open_service(vault: Path | None, initial_sync: bool = True, **overrides) -> Iterator[MemoryService]:
    quiet_libraries()
    settings = load_settings(vault=vault, **overrides)
    settings.vault_path()
    svc = MemoryService(settings)
    try:
        if initial_sync:
            svc.sync()  # the no-change path is cheap; results must reflect the vault as it is
        yield svc
    finally:
        svc.close()
