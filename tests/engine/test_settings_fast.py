"""Settings load without pydantic when every value is plainly valid (vault_sync/settings.py);
the pydantic model (settings_model.py) checks the rest. Both must give the same settings."""

from __future__ import annotations

import math
from pathlib import Path

import annotated_types
import pytest

from vault_sync import settings as S
from vault_sync import settings_fields as F
from vault_sync.settings import FIELDS, load_settings, plain_values
from vault_sync.settings_model import SettingsModel, checked_values

KIND_OF = {float: F.FLOAT, int: F.INT, bool: F.BOOL, str: F.STR, Path | None: F.PATH, dict[str, str]: F.MAPPING}
BOUND_OF = {annotated_types.Gt: "gt", annotated_types.Ge: "ge", annotated_types.Le: "le"}


def test_the_table_is_the_models():
    assert list(FIELDS) == list(SettingsModel.model_fields)
    for name, field in SettingsModel.model_fields.items():
        kind, default, bounds = FIELDS[name]
        assert kind == KIND_OF.get(field.annotation, F.CHOICE), name
        if kind == F.CHOICE:
            assert field.annotation.__args__ == F.DECAY_MODELS
        assert default == field.default and type(default) is type(field.default), name
        found = {}
        for item in field.metadata:
            found[BOUND_OF[type(item)]] = getattr(item, BOUND_OF[type(item)])
        assert found == bounds, name


def _same(plain: dict, model: dict) -> None:
    assert plain == model
    for name in FIELDS:  # 3 and 3.0 are equal: the types must be too
        assert type(plain[name]) is type(model[name]), name


PLAIN = [
    ({}, {}, {}),
    ({"half_life_days": 9, "decay_model": "exponential"}, {"MNEMOVAULT_BETA": "0.5"}, {"beta": 1.5}),
    ({}, {"MNEMOVAULT_HALF_LIFE_DAYS": "7", "mnemovault_sweep_chunk": "20"}, {"half_life_days": 5}),
    ({}, {"MNEMOVAULT_EMBEDDINGS": "false", "MNEMOVAULT_AUTO_GC": "1"}, {"auto_promote": False}),
    ({}, {"MNEMOVAULT_PROJECTS": '{"Work": "work"}'}, {"projects": {"Home": "home", "Work": "x"}}),
    ({"projects": {"A": "a"}}, {}, {"projects": {"B": ""}}),
    (
        {"index_path": "/tmp/x.sqlite3", "stm_dir": "Short"},
        {"MNEMOVAULT_SCORE_PRECISION": "8"},
        {"score_refresh_hours": 0},
    ),
    ({}, {"MNEMOVAULT_DANGER_ZONE_MIN": "0.1", "MNEMOVAULT_TOUCH_BOOST": "2"}, {"danger_zone_max": 0.9}),
]


@pytest.mark.parametrize("explicit, env, toml", PLAIN)
def test_plain_settings_are_the_models(explicit, env, toml, monkeypatch):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    plain = plain_values(explicit, toml)
    assert plain is not None
    _same(plain, checked_values(explicit, toml))


# given the model's way (or refused in its words): the plain path leaves each to it
UNSURE = [
    ({}, {"MNEMOVAULT_EMBEDDINGS": "Yes"}, {}),
    ({}, {"MNEMOVAULT_SWEEP_CHUNK": "007"}, {}),
    ({"sweep_chunk": 3.0}, {}, {}),
    ({"half_life_days": math.inf}, {}, {}),
    ({}, {"MNEMOVAULT_HALF_LIFE_DAYS": " 2"}, {}),
    ({}, {}, {"half_life_days": "1e3"}),
    ({"embeddings": 1}, {}, {}),
    ({}, {}, {"promote_min_uses": True}),
]


@pytest.mark.parametrize("explicit, env, toml", UNSURE)
def test_what_the_plain_path_is_unsure_of_goes_to_the_model(explicit, env, toml, monkeypatch, empty_vault):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert plain_values(explicit, toml) is None
    _same(vars(load_settings(vault=empty_vault, **explicit)), vars(_model_settings(empty_vault, explicit)))


def _model_settings(vault: Path, explicit: dict) -> S.Settings:
    settings = S.Settings(checked_values({"vault": vault, **explicit}, {}))
    settings.vault = vault.resolve()
    return settings


BAD = [
    ({"decay_model": "linear"}, {}),
    ({"half_life_days": 0}, {}),
    ({"danger_zone_min": 0.5, "danger_zone_max": 0.2}, {}),
    ({"stm_dir": "../outside"}, {}),
    ({"stm_dir": "Same", "ltm_dir": "Same"}, {}),
    ({"no_such_setting": 1}, {}),
    ({}, {"MNEMOVAULT_BETA": "lots"}),
    ({}, {"MNEMOVAULT_PROJECTS": "not json"}),
    ({}, {"MNEMOVAULT_PROJECTS": '{"A": 1}'}),
]


@pytest.mark.parametrize("explicit, env", BAD)
def test_a_bad_value_is_refused_in_the_models_words(explicit, env, monkeypatch):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert plain_values(explicit, {}) is None


def test_loading_plain_settings_imports_no_pydantic(empty_vault):
    import subprocess
    import sys

    code = (
        "import sys; from vault_sync.settings import load_settings; "
        f"s = load_settings(vault={str(empty_vault)!r}, half_life_days=4); "
        "print(s.half_life_days, any(m.startswith('pydantic') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["4.0", "False"]
