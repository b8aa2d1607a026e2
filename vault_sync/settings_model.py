"""The settings' full validation: the pydantic model and its sources (explicit > env >
config.toml). vault_sync/settings.py loads plain, valid settings without it; any value it is
not sure of comes here, so every error reads as pydantic words it (and the values agree:
tests/engine/test_settings_fast.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .errors import SettingsError
from .settings_fields import DEFAULT_MODEL, FIELDS, check_folders


class SettingsModel(BaseSettings):
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
    duplicate_settle_seconds: float = Field(600.0, ge=0)
    score_precision: int = Field(3, ge=1, le=8)
    score_refresh_hours: float = Field(24.0, ge=0)
    sweep_chunk: int = Field(500, ge=1)
    max_note_bytes: int = Field(2_000_000, gt=0)

    auto_promote: bool = True
    auto_gc: bool = True
    reinforce_repeats: bool = True
    lifecycle_interval_seconds: float = Field(300.0, gt=0)
    reconcile_interval_seconds: float = Field(600.0, gt=0)
    lease_seconds: float = Field(900.0, gt=0)

    embeddings: bool = True
    embedding_model: str = DEFAULT_MODEL
    embedding_batch_size: int = Field(32, ge=1)

    projects: dict[str, str] = Field(default={})

    @model_validator(mode="after")
    def _check(self) -> "SettingsModel":
        problem = check_folders(self.__dict__)
        if problem:
            raise ValueError(problem)
        return self


class _DictSource(PydanticBaseSettingsSource):
    """Lowest-priority source: the config files, already read."""

    def __init__(self, settings_cls: type[BaseSettings], data: dict[str, Any]):
        super().__init__(settings_cls)
        self._data = data

    def get_field_value(
        self, field: Any, field_name: str
    ) -> tuple[Any, str, bool]:  # pragma: no cover - __call__ is used
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


def checked_values(explicit: dict[str, Any], toml_data: dict[str, Any]) -> dict[str, Any]:
    """Every setting's value from explicit arguments, MNEMOVAULT_* and the config files'
    `toml_data`, validated; SettingsError naming each bad one."""

    class _Loaded(SettingsModel):
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
        model = _Loaded(**explicit)
    except ValidationError as exc:
        raise SettingsError(_describe(exc)) from None
    return {name: getattr(model, name) for name in FIELDS}


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err["loc"]) or "settings"
        where = f"{name} (env MNEMOVAULT_{name.upper()})" if err["loc"] else name
        lines.append(f"invalid setting {where}: {err['msg']}")
    return "; ".join(lines)
