"""Settings: explicit arguments > MNEMOVAULT_* env vars > <vault>/.mnemovault/config.toml > the
person's own config.toml > defaults. The vault's file sets only VAULT_SETTINGS."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from .errors import SettingsError
from .settings_fields import (
    BOOL,
    CHOICE,
    DECAY_MODELS,
    FIELDS,
    INT,
    MAPPING,
    PATH,
    STR,
    check_folders,
)

CONFIG_RELPATH = Path(".mnemovault") / "config.toml"
log = logging.getLogger("mnemovault.settings")


class Settings:
    """The settings of one engine, as load_settings gives them (every value checked)."""

    vault: Path | None
    stm_dir: str
    ltm_dir: str
    archive_dir: str
    index_path: Path | None
    decay_model: Literal["power_law", "exponential", "two_component"]
    half_life_days: float
    beta: float
    pl_alpha: float
    tc_weight_fast: float
    tc_fast_half_life_hours: float
    tc_slow_half_life_days: float
    forget_threshold: float
    promote_threshold: float
    promote_min_uses: int
    promote_use_count: int
    promote_window_days: float
    danger_zone_min: float
    danger_zone_max: float
    review_blend_ratio: float
    touch_boost: float
    cross_domain_threshold: float
    quiet_seconds: float
    duplicate_settle_seconds: float
    score_precision: int
    score_refresh_hours: float
    sweep_chunk: int
    max_note_bytes: int
    auto_promote: bool
    auto_gc: bool
    reinforce_repeats: bool
    lifecycle_interval_seconds: float
    reconcile_interval_seconds: float
    lease_seconds: float
    embeddings: bool
    embedding_model: str
    embedding_batch_size: int
    projects: dict[str, str]

    def __init__(self, values: dict[str, Any]):
        for name in FIELDS:
            setattr(self, name, values[name])

    def __repr__(self) -> str:
        return "Settings(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS) + ")"

    def vault_path(self) -> Path:
        if self.vault is None:
            raise SettingsError("no vault: pass --vault DIR, set MNEMOVAULT_VAULT, or run inside a configured vault")
        return self.vault

    def resolved_index_path(self) -> Path:
        """The index file: outside the vault by default, one per vault path."""
        if self.index_path is not None:
            return self.index_path
        return default_index_path(self.vault_path())


def default_index_path(vault: Path) -> Path:
    from platformdirs import user_data_dir

    base = Path(os.environ.get("MNEMOVAULT_DATA_DIR") or user_data_dir("mnemovault", appauthor=False))
    key = hashlib.sha256(str(vault.resolve()).encode("utf-8")).hexdigest()[:16]
    return base / "indexes" / f"{vault.resolve().name or 'vault'}-{key}.sqlite3"


# what a vault's own config.toml may set: how its memories fade and move, nothing else. A
# vault synced from elsewhere (or shared) must not choose where this device writes the full
# text of every note, which folder's notes count as memories (a `stm_dir` naming the daily
# notes would have the sweep rewrite them), which model runs, or how much work a note is.
VAULT_SETTINGS = frozenset(
    {
        "decay_model",
        "half_life_days",
        "beta",
        "pl_alpha",
        "tc_weight_fast",
        "tc_fast_half_life_hours",
        "tc_slow_half_life_days",
        "forget_threshold",
        "promote_threshold",
        "promote_min_uses",
        "promote_use_count",
        "promote_window_days",
        "danger_zone_min",
        "danger_zone_max",
        "review_blend_ratio",
        "touch_boost",
        "cross_domain_threshold",
        "score_precision",
        "score_refresh_hours",
        "auto_promote",
        "auto_gc",
        "projects",  # names only: which folder is which project
        "reinforce_repeats",
    }
)


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML ({exc})") from exc
    section = data.get("mnemovault", data)
    if not isinstance(section, dict):
        return data
    if section is not data and isinstance(data.get("projects"), dict) and "projects" not in section:
        section = {**section, "projects": data["projects"]}  # a top-level [projects] beside [mnemovault]
    return section


def user_config_file() -> Path:
    """The person's own config file (MNEMOVAULT_CONFIG_DIR or the user config dir)."""
    override = os.environ.get("MNEMOVAULT_CONFIG_DIR")
    if override:
        return Path(override) / "config.toml"
    from platformdirs import user_config_dir

    return Path(user_config_dir("mnemovault", appauthor=False)) / "config.toml"


def _vault_toml(vault: Path) -> dict[str, Any]:
    """The vault's config.toml, only what a vault may set (VAULT_SETTINGS); the rest is
    ignored there, with a warning naming where to set it."""
    path = vault / CONFIG_RELPATH
    data = dict(_read_toml(path))
    for name in sorted(set(data) - VAULT_SETTINGS):
        del data[name]
        log.warning(
            "%s: ignoring %s (a vault's config sets only how memories fade and move, not paths, folders, "
            "the model or limits of this device); set it in %s or MNEMOVAULT_%s instead",
            path,
            name[:40],
            user_config_file(),
            name.upper()[:40],
        )
    return data


def vault_around(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding a vault's .mnemovault/config.toml."""
    try:
        start = folder.resolve()
    except OSError:
        return None
    for candidate in (start, *start.parents):
        if (candidate / CONFIG_RELPATH).is_file():
            return candidate
    return None


def _vault_around_cwd() -> Path | None:
    try:
        return vault_around(Path.cwd())
    except OSError:  # the working folder was deleted
        return None


def _named_vault(vault: Any, user_data: dict[str, Any]) -> Any:
    return vault or os.environ.get("MNEMOVAULT_VAULT") or user_data.get("vault")


def named_vault(vault: Path | None = None) -> Path | None:
    """The vault a command works on, as load_settings finds it (--vault, MNEMOVAULT_VAULT, the
    user's config, else the configured vault the working folder is inside), without the rest of
    the settings: how the CLI finds the daemon serving it."""
    found = _named_vault(vault, _read_toml(user_config_file())) or _vault_around_cwd()
    return Path(found).expanduser() if found else None


def load_settings(**explicit: Any) -> Settings:
    """Build settings; None-valued explicit arguments are treated as not given."""
    explicit = {k: v for k, v in explicit.items() if v is not None}
    user_data = _read_toml(user_config_file())
    vault = _named_vault(explicit.get("vault"), user_data)
    if not vault:  # no vault named anywhere: the configured vault the working folder is inside
        around = _vault_around_cwd()
        if around is not None:
            vault = explicit["vault"] = around
    toml_data = {**user_data, **(_vault_toml(Path(vault).expanduser()) if vault else {})}
    values = plain_values(explicit, toml_data)
    if values is None:  # something to check closely (or to refuse in the model's words)
        from .settings_model import checked_values

        values = checked_values(explicit, toml_data)
    settings = Settings(values)
    if settings.vault is not None:
        vault_path = settings.vault.expanduser().resolve()
        if not vault_path.is_dir():
            raise SettingsError(f"vault: {settings.vault} is not a folder")
        settings.vault = vault_path
        index = settings.resolved_index_path().expanduser().resolve()
        if _inside_visible_part(index, vault_path):
            raise SettingsError(
                f"index_path: {index} is inside the vault; the index is per device and must live outside it "
                "(or in a dot-folder of the vault)"
            )
    return settings


def plain_values(explicit: dict[str, Any], toml_data: dict[str, Any]) -> dict[str, Any] | None:
    """Every setting's value when each one given is plainly valid, merged as the model's
    sources merge them (explicit > MNEMOVAULT_* > the config files, tables merged key by key);
    None when any is not (the model then checks them all and words what is wrong)."""
    env = {key.lower(): value for key, value in os.environ.items()}  # names are not case-sensitive there
    from_env: dict[str, Any] = {}
    for name, (kind, _default, _bounds) in FIELDS.items():
        raw = env.get(f"mnemovault_{name}")
        if raw is None:
            continue
        if kind == MAPPING:  # a table is JSON in the environment
            try:
                raw = json.loads(raw)
            except ValueError:
                return None
        from_env[name] = raw
    merged = _merge(_merge(dict(toml_data), from_env), explicit)
    if not set(merged) <= set(FIELDS):
        return None
    values = {}
    for name, (kind, default, bounds) in FIELDS.items():
        if name not in merged:
            values[name] = dict(default) if kind == MAPPING else default
            continue
        value = _plain(kind, merged[name], bounds)
        if value is None:
            return None
        values[name] = value
    if check_folders(values):
        return None
    return values


def _merge(base: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """`update` over `base`, tables merged key by key (as pydantic-settings merges its sources)."""
    merged = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


_INT_TEXT = re.compile(r"-?(0|[1-9][0-9]{0,14})")
_FLOAT_TEXT = re.compile(r"-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?")


def _plain(kind: str, value: Any, bounds: dict[str, float]) -> Any:
    """`value` as the model would take it, when it plainly is valid; None when unsure."""
    if kind == PATH:
        if isinstance(value, Path):
            return value
        return Path(value) if type(value) is str and value else None
    if kind == STR:
        return value if type(value) is str else None
    if kind == CHOICE:
        return value if type(value) is str and value in DECAY_MODELS else None
    if kind == BOOL:
        if type(value) is bool:
            return value
        return {"true": True, "false": False, "1": True, "0": False}.get(value) if type(value) is str else None
    if kind == MAPPING:
        if type(value) is dict and all(type(k) is str and type(v) is str for k, v in value.items()):
            return dict(value)
        return None
    number: float | int
    if kind == INT:
        if type(value) is int and abs(value) < 10**15:
            number = value
        elif type(value) is str and _INT_TEXT.fullmatch(value):
            number = int(value)
        else:
            return None
    else:
        if type(value) in (int, float) and abs(value) < 10**15:
            number = float(value)
        elif type(value) is str and _FLOAT_TEXT.fullmatch(value):
            number = float(value)
        else:
            return None
    if not (
        number == number  # NaN
        and ("gt" not in bounds or number > bounds["gt"])
        and ("ge" not in bounds or number >= bounds["ge"])
        and ("le" not in bounds or number <= bounds["le"])
    ):
        return None
    return number


def _inside_visible_part(path: Path, vault: Path) -> bool:
    try:
        rel = path.relative_to(vault)
    except ValueError:
        return False
    return not any(part.startswith(".") for part in rel.parts[:-1])
