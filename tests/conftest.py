"""Shared fixtures: real files in temp dirs, real SQLite, a fixed clock."""

from __future__ import annotations

import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample-vault"
# the sample vault's reference now (sample-vault/.mnemovault/sample.json)
FIXED_NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
for key in list(os.environ):
    if key.startswith("MNEMOVAULT_"):
        del os.environ[key]


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch):
    """Index files and bridge files of every test live in temp dirs, never the user's."""
    base = tmp_path_factory.mktemp("userdirs")
    monkeypatch.setenv("MNEMOVAULT_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("MNEMOVAULT_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("MNEMOVAULT_LOG_DIR", str(base / "logs"))
    monkeypatch.setenv("MNEMOVAULT_EMBEDDINGS", "false")
    # the CLI's project is otherwise the current folder's (the repository's): shared, as before projects
    monkeypatch.setenv("MNEMOVAULT_PROJECT", "")


@pytest.fixture
def vault(tmp_path) -> Path:
    """A fresh copy of sample-vault/ (states hold at FIXED_NOW)."""
    dst = tmp_path / "vault"
    shutil.copytree(SAMPLE, dst)
    return dst


@pytest.fixture
def empty_vault(tmp_path) -> Path:
    dst = tmp_path / "empty"
    (dst / "STM").mkdir(parents=True)
    return dst


def make_service(vault: Path, now: datetime = FIXED_NOW, sync: bool = True, **overrides):
    from vault_sync.service import MemoryService
    from vault_sync.settings import load_settings

    overrides.setdefault("quiet_seconds", 0)
    overrides.setdefault("embeddings", False)
    overrides.setdefault("index_path", vault.parent / f"{vault.name}-index.sqlite3")
    settings = load_settings(vault=vault, **overrides)
    svc = MemoryService(settings, clock=lambda: now)
    if sync:
        svc.sync()
    return svc


@pytest.fixture
def service(vault):
    svc = make_service(vault)
    yield svc
    svc.close()


def _rebuild_dump(layout, max_note_bytes: int | None = None) -> dict:
    from vault_sync.index.store import IndexStore
    from vault_sync.index.sync import Indexer

    kw = {} if max_note_bytes is None else {"max_note_bytes": max_note_bytes}
    with tempfile.TemporaryDirectory(prefix="mnemovault-rebuild-") as tmp:  # nowhere near the vault
        store = IndexStore(Path(tmp) / "rebuild.sqlite3")
        try:
            Indexer(store, layout, **kw).reconcile(rebuild=True)
            return store.canonical_dump()
        finally:
            store.close()


def rebuild_dump(vault: Path) -> dict:
    """The canonical dump of an index built from scratch on `vault` (Index = f(vault))."""
    from vault_sync.vault import Layout

    return _rebuild_dump(Layout(vault))


def index_dump(index_path: Path) -> dict:
    """The canonical dump of the index file at `index_path` (e.g. a daemon's)."""
    from vault_sync.index.store import IndexStore

    store = IndexStore(index_path)
    try:
        return store.canonical_dump()
    finally:
        store.close()


def assert_index_matches_rebuild(svc) -> None:
    """The service's index equals a rebuild from scratch of its vault."""
    assert svc.store.canonical_dump() == _rebuild_dump(svc.layout, svc.indexer.max_note_bytes), (
        "index differs from a rebuild"
    )


@pytest.fixture
def daemon(vault, tmp_path):
    """A daemon on `vault` with a home of its own; the scheduled lifecycle moves nothing."""
    from daemon_util import QUIET_LIFECYCLE, Daemon

    d = Daemon(vault, tmp_path / "daemon-home", **QUIET_LIFECYCLE)
    try:
        yield d.start()
    finally:
        d.close()
