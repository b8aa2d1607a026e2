"""Per-user places: the bridge files (port + token), the device token, logs (the daemon's
lock is in the vault: bridge/vault_lock.py)."""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("mnemovault.paths")

# "" in a checkout; "mnemovault" in the installed wheel, whose build puts bridge/ and vault_sync/
# under one package (.ci/hatch_build.py)
_PREFIX = __name__.rpartition(".")[0].rpartition(".")[0]


def module(name: str) -> str:
    """The import name of a module named as in the repository ("bridge.cli", "vault_sync.watcher")
    in this copy: for `python -m` commands and code run in a child process."""
    return f"{_PREFIX}.{name}" if _PREFIX else name


def import_root() -> Path:
    """The sys.path entry holding this copy: the checkout, or the installed wheel's site-packages."""
    return Path(__file__).resolve().parents[module("bridge").count(".") + 1]


def vault_key(vault: Path) -> str:
    return hashlib.sha256(str(Path(vault).resolve()).encode("utf-8")).hexdigest()[:16]


# what makes a folder a vault here: Obsidian's settings, mnemovault's, or the memory folder
VAULT_MARKERS = (".obsidian", ".mnemovault", "STM")


def not_a_vault(folder: Path) -> str | None:
    """Why `folder` is not a vault (a sentence naming the fix), or None when it is one."""
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if any((folder / name).is_dir() for name in VAULT_MARKERS):
        return None
    return (
        f"{folder} is not a vault (no .obsidian/, .mnemovault/ or STM/ folder): "
        f"open it in Obsidian or run `mnemovault init {folder}` first"
    )


def config_dir() -> Path:
    override = os.environ.get("MNEMOVAULT_CONFIG_DIR")
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir("mnemovault", appauthor=False))


def log_dir() -> Path:
    override = os.environ.get("MNEMOVAULT_LOG_DIR")
    if override:
        return Path(override)
    from platformdirs import user_log_dir

    return Path(user_log_dir("mnemovault", appauthor=False))


def bridge_file(vault: Path) -> Path:
    return config_dir() / "bridges" / f"{vault_key(vault)}.json"


def early_file(vault: Path) -> Path:
    """Where a starting daemon names its early save server (bridge/early_server.py): beside the bridge
    file, and not `*.json`, which names a daemon that serves everything."""
    return bridge_file(vault).with_suffix(".early")


def token_file() -> Path:
    return config_dir() / "token"


def _loose(path: Path, allowed: int) -> int | None:
    """The mode of `path` when it grants more than `allowed`; None otherwise (or on Windows)."""
    if os.name == "nt":  # pragma: no cover - modes mean little there
        return None
    mode = stat.S_IMODE(path.stat().st_mode)
    return mode if mode & ~allowed else None


def private_dir(folder: Path) -> None:
    """Create `folder` (and the config folder above it) 0700, or fix them, with a warning."""
    top = config_dir()
    for d in ([top] if top in folder.parents else []) + [folder]:
        if not d.exists():
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(d, 0o700)  # the umask may have taken bits off, never added: this is exact
            continue
        loose = _loose(d, 0o700)
        if loose is not None:
            os.chmod(d, 0o700)
            log.warning("%s was readable by others (mode %o); set it to 700", d, loose)


def private_file(path: Path) -> None:
    """Fix an existing secret file to 0600, with a warning when it was looser."""
    loose = _loose(path, 0o600)
    if loose is not None:
        os.chmod(path, 0o600)
        log.warning("%s was readable by others (mode %o); set it to 600", path, loose)


def private_write(path: Path, data: str) -> None:
    """Write a file only the user can read (0600, in a 0700 folder), atomically."""
    private_dir(path.parent)
    if path.exists():
        private_file(path)  # about to be replaced, but a looser one was exposed: say so
    import secrets

    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")  # new, never through a link
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(data)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def device_token() -> str:
    """Created on first start, then reused: the plugin never needs a new one."""
    import secrets

    path = token_file()
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError:
        token = ""
    if len(token) >= 32:
        private_dir(path.parent)
        private_file(path)
        return token
    token = secrets.token_urlsafe(32)
    private_write(path, token + "\n")
    return token
