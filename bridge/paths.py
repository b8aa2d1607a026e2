"""Per-user places: the bridge files (port + token), the device token, logs, daemon locks."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def vault_key(vault: Path) -> str:
    return hashlib.sha256(str(Path(vault).resolve()).encode("utf-8")).hexdigest()[:16]


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


def lock_file(vault: Path) -> Path:
    return config_dir() / "locks" / f"{vault_key(vault)}.lock"


def token_file() -> Path:
    return config_dir() / "token"


def private_write(path: Path, data: str) -> None:
    """Write a file only the user can read (0600), atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(path.parent, 0o700)
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
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
        if len(token) >= 32:
            return token
    except OSError:
        pass
    token = secrets.token_urlsafe(32)
    private_write(path, token + "\n")
    return token
